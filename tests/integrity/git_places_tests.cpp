// Where else git runs code from, beside .git/config and .git/hooks: the directory core.hooksPath
// names (husky's .husky/), a config file in the workspace that .git/config includes, and the git
// directory of a repository nested in the workspace (a clone inside the clone). A caged step that
// changes one finds it put back, and the user's next plain `git commit` runs only the user's own
// hook; a step that leaves them alone changes nothing. The hook's file tools ask for the same
// files. As root and as nobody.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cage/integrity/workspace_guard.h"
#include "hook/decision/git_guard.h"
#include "support.h"

using namespace integrity;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

// The user's own hook, which writes its marker; `dir` is workspace-relative.
void user_hook(const Workspace& w, const std::string& rel) {
    w.put(rel, "#!/bin/sh\ntouch " + w.marker("user-hook") + "\n", 0755);
}

std::string evil_hook(const Workspace& w, const std::string& rel) {
    return "printf '" + w.evil_script("evil") + "' > " + rel + " && chmod +x " + rel;
}

// The user's next commit, outside any cage: the user's hook runs, the planted one does not.
void commit_runs_only_the_users_hook(const Workspace& w, const std::string& dir = ".") {
    fs::remove(w.marker("user-hook"));
    Result ci = w.git({"-C", dir, "commit", "-q", "--allow-empty", "-m", "after"});
    INFO(ci.out);
    CHECK(ci.status == 0);
    CHECK(present(w.marker("user-hook")));
    CHECK_FALSE(present(w.marker("evil")));
}

}  // namespace

TEST_CASE("core.hooksPath inside the workspace: a step's change to the hooks is put back", "[integrity][git-places]") {
    As who = GENERATE(As::root, As::nobody);
    // husky 8 points core.hooksPath at .husky; husky 9 at .husky/_, whose stubs run .husky/<hook>.
    const std::string hooks_path = GENERATE(std::string(".husky"), std::string(".husky/_"));
    INFO(name_of(who) << ", core.hooksPath " << hooks_path);
    Workspace w(who);
    user_hook(w, ".husky/pre-commit");
    if (hooks_path == ".husky/_") w.put(".husky/_/pre-commit", "#!/bin/sh\nexec \"$(dirname \"$0\")/../pre-commit\"\n", 0755);
    w.own();
    REQUIRE(w.git({"config", "core.hooksPath", hooks_path}).status == 0);
    const std::string policy = w.snapshot_policy();

    // The legitimate path: a step that does not touch the hooks; the user's hook still runs.
    Result ok = w.caged("echo work > work.txt", policy);
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK(ok.out.find("tamper") == std::string::npos);
    commit_runs_only_the_users_hook(w);

    const std::string before = w.read(".husky/pre-commit");
    Result r = w.caged(evil_hook(w, ".husky/pre-commit") + " && " + evil_hook(w, hooks_path + "/pre-push") +
                           " && echo planted",
                       policy);
    INFO(r.out);
    CHECK(r.out.find("planted") != std::string::npos);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("toolcage run: tamper: .husky/pre-commit changed; restored") != std::string::npos);
    CHECK(r.out.find("toolcage run: tamper: " + hooks_path + "/pre-push created; removed") != std::string::npos);
    CHECK(w.read(".husky/pre-commit") == before);
    commit_runs_only_the_users_hook(w);
}

TEST_CASE("a config file the repository's config includes is put back, and one it may include is not made",
          "[integrity][git-places]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    user_hook(w, ".git/hooks/pre-commit");
    w.put("tools/git.cfg", "[user]\n\tname = team\n");
    w.own();
    REQUIRE(w.git({"config", "include.path", "../tools/git.cfg"}).status == 0);
    REQUIRE(w.git({"config", "includeIf.gitdir:/nowhere/.path", "../tools/other.cfg"}).status == 0);
    const std::string policy = w.policy();
    const std::string cfg = w.read("tools/git.cfg");

    Result ok = w.caged("echo work > work.txt", policy);
    INFO(ok.out);
    CHECK(ok.status == 0);
    commit_runs_only_the_users_hook(w);

    Result r = w.caged("printf '" + w.evil_script("evil") + "' > evil.sh && chmod +x evil.sh && "
                       "printf '[core]\\n\\thooksPath = %s/evilhooks\\n' \"$PWD\" >> tools/git.cfg && "
                       "mkdir -p evilhooks && cp evil.sh evilhooks/pre-commit && "
                       "printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' \"$PWD\" > tools/other.cfg && echo planted",
                       policy);
    INFO(r.out);
    CHECK(r.out.find("planted") != std::string::npos);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("toolcage run: tamper: tools/git.cfg changed; restored") != std::string::npos);
    CHECK(r.out.find("toolcage run: tamper: tools/other.cfg created; removed") != std::string::npos);
    CHECK(w.read("tools/git.cfg") == cfg);
    CHECK_FALSE(present(w.ws / "tools/other.cfg"));
    commit_runs_only_the_users_hook(w);
}

TEST_CASE("a repository nested in the workspace: its hooks and config are kept; a step's own clone stays",
          "[integrity][git-places]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    REQUIRE(w.shell("mkdir -p vendor/lib && cd vendor/lib && git init -q . && echo x > f && git add f && "
                    "git commit -q -m one").status == 0);
    user_hook(w, "vendor/lib/.git/hooks/pre-commit");
    w.own();
    const std::string policy = w.policy();
    const std::string config = w.read("vendor/lib/.git/config");

    Result ok = w.caged("cd vendor/lib && echo y > g && git add g && git -c user.name=t -c user.email=t@example.org commit --no-verify -q -m two && echo committed", policy);
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK(ok.out.find("tamper") == std::string::npos);
    commit_runs_only_the_users_hook(w, "vendor/lib");

    Result r = w.caged(evil_hook(w, "vendor/lib/.git/hooks/pre-commit") + " && " +
                           "git -C vendor/lib config core.hooksPath /tmp && echo planted",
                       policy);
    INFO(r.out);
    CHECK(r.out.find("planted") != std::string::npos);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("toolcage run: tamper: vendor/lib/.git/hooks/pre-commit changed; restored") != std::string::npos);
    CHECK(r.out.find("toolcage run: tamper: vendor/lib/.git/config changed; restored") != std::string::npos);
    CHECK(w.read("vendor/lib/.git/config") == config);
    commit_runs_only_the_users_hook(w, "vendor/lib");

    // A repository the step makes inside the workspace stays, without a hook planted in it.
    Result made = w.caged("mkdir dep && cd dep && git init -q . && echo z > z && git add z && git -c user.name=t -c user.email=t@example.org commit -q -m dep && " +
                              evil_hook(w, ".git/hooks/pre-commit") + " && echo made",
                          policy);
    INFO(made.out);
    CHECK(made.out.find("made") != std::string::npos);
    CHECK(made.out.find("toolcage run: tamper: dep/.git/hooks created; removed") != std::string::npos);
    CHECK(w.git({"-C", "dep", "log", "--format=%s"}).out == "dep\n");
    CHECK_FALSE(present(w.ws / "dep/.git/hooks/pre-commit"));
}

TEST_CASE("the file tools ask before writing where git runs code from", "[integrity][git-places][hook]") {
    Workspace w(As::root);
    w.put(".husky/pre-commit", "#!/bin/sh\n", 0755);
    w.put("tools/git.cfg", "[user]\n\tname = team\n");
    REQUIRE(w.git({"config", "core.hooksPath", ".husky/_"}).status == 0);
    REQUIRE(w.git({"config", "include.path", "../tools/git.cfg"}).status == 0);
    REQUIRE(w.shell("mkdir -p vendor/lib && git -C vendor/lib init -q").status == 0);
    const std::string ws = w.ws.string();
    using toolcage::hook::check_git_write;
    for (const char* rel : {".husky/pre-commit", ".husky/_/pre-push", "tools/git.cfg", "vendor/lib/.git/hooks/pre-commit",
                            "vendor/lib/.git/config", "vendor/lib/.git", "vendor/lib/.git/hooks/new"}) {
        INFO(rel);
        auto v = check_git_write(ws + "/" + rel, w.home.string());
        REQUIRE(v);
        CHECK(v->decision == toolcage::Decision::ask);
        CHECK(v->reason.find(ws + "/" + rel) != std::string::npos);
    }
    for (const char* rel : {"src/main.c", "README", "vendor/lib/f", "tools/other.txt", ".gitignore"}) {
        INFO(rel);
        CHECK_FALSE(check_git_write(ws + "/" + rel, w.home.string()));
    }
}
