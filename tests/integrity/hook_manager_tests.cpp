// Hook managers and git's filters with the real tools, as root and as nobody: a caged step
// changes what the user's next ordinary git command obeys (a .gitattributes routing files through
// a filter or diff driver of the user's own config, a Python module shadowing what that filter
// imports, pre-commit's configuration or pre-commit itself, husky's hooks under core.hooksPath);
// the user's next `git add`, `git diff` or `git commit` outside the cage runs nothing planted,
// and after `toolcage land` the same change is in place and obeyed, whether the step wrote in
// place (the snapshot and restore) or into a layer. Each planting is first shown
// to work without toolcage, so that a missing marker proves something. A case whose tool is not
// installed is skipped with a warning.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "cage/integrity/step_journal.h"
#include "cage/integrity/workspace_guard.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

bool have(const std::string& program) {
    return ::access(program.c_str(), X_OK) == 0;
}

std::vector<As> users() {
    std::vector<As> out = {As::root};
    if (::geteuid() == 0) out.push_back(As::nobody);
    return out;
}

Result tc(const Workspace& w, std::vector<std::string> args) {
    args.insert(args.begin(), w.who == As::nobody ? testsupport::reachable(TOOLCAGE_BIN)
                                                  : std::string(TOOLCAGE_BIN));
    return run(as_user(w.who, args), w.env(), w.ws.string());
}

// The step's id, from the line that says how to land its held changes ("" when none).
std::string held_step(const Result& r) {
    std::smatch m;
    static const std::regex re("toolcage land ([0-9a-f]{16}) \\[PATH");
    return std::regex_search(r.out, m, re) ? std::string(m[1]) : std::string();
}

bool says_held(const Result& r, const std::string& path, const std::string& change) {
    return r.out.find("toolcage run: held: " + path + " " + change) != std::string::npos;
}

// The records and held changes of a test's workspace go with it.
struct ForgetChanges {
    const Workspace& w;
    ~ForgetChanges() {
        std::error_code ec;
        fs::remove_all(toolcage::cage::journal_dir(fs::weakly_canonical(w.ws).string(),
                                                   state_dir_of(w.who) + "/changes"),
                       ec);
    }
};

// The user's own global git configuration, in the test's HOME (which toolcage ignores): the
// shell prefix that makes git read it.
std::string user_gitconfig(const Workspace& w, const std::string& text) {
    const fs::path file = w.home / ".gitconfig";
    std::ofstream(file) << text;
    ::chmod(file.c_str(), 0644);
    return "export GIT_CONFIG_GLOBAL=" + file.string() + "; ";
}

// `toolcage run` of `script` in the background, killed with its supervisor once the step has
// printed STARTED: the next toolcage call in the workspace settles what it changed.
void run_killed(const Workspace& w, const std::string& policy, const std::string& script) {
    std::vector<std::string> argv = as_user(
        w.who, {testsupport::reachable(TOOLCAGE_BIN), "run", "--policy", policy, "--workdir",
                w.ws.string(), "--", "/bin/sh", "-c", script + " && echo STARTED && sleep 60"});
    std::vector<std::string> env_s;
    for (const auto& [k, v] : w.env()) env_s.push_back(k + "=" + v);
    testsupport::keep_suite_state(env_s);
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<char*> args, envp;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        for (auto& e : env_s) envp.push_back(e.data());
        envp.push_back(nullptr);
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        if (::chdir(w.ws.c_str()) != 0) _exit(98);
        ::execve(args[0], args.data(), envp.data());
        _exit(99);
    }
    ::close(p[1]);
    std::string seen;
    char buf[512];
    while (seen.find("STARTED") == std::string::npos) {
        ssize_t n = ::read(p[0], buf, sizeof buf);
        if (n <= 0) break;
        seen.append(buf, static_cast<std::size_t>(n));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    ::close(p[0]);
    INFO(seen);
    REQUIRE(seen.find("STARTED") != std::string::npos);
}

void forget_markers(const Workspace& w, std::initializer_list<const char*> names) {
    for (const char* n : names) fs::remove(w.marker(n));
}

}  // namespace

TEST_CASE(
    "a planted .gitattributes does not route the user's next git add or diff through the user's "
    "own filter",
    "[held][git][filter]") {
    for (As who : users()) {
        for (const bool layer : {false, true}) {
            DYNAMIC_SECTION("as " << name_of(who) << (layer ? ", in a layer" : ", in place")) {
                Workspace w(who);
                ForgetChanges forget{w};
                // A filter and a diff driver of the user's own, as git-crypt's and git-lfs's are:
                // each leaves its marker when git runs it, on a file the attributes route through
                // it. (A ';' would start a comment in git's configuration: the commands use '&&'.)
                const std::string git =
                    user_gitconfig(w, "[filter \"crypt\"]\n\tclean = sh -c 'touch " +
                                          w.marker("filter") + " && cat'\n\tsmudge = cat\n" +
                                          "[diff \"conv\"]\n\ttextconv = sh -c 'touch " +
                                          w.marker("diff") + " && cat $0'\n");
                w.put("secret.txt", "s\n");
                w.put("docs/a.md", "a\n");
                w.own();
                REQUIRE(w.shell(git + "git add secret.txt docs/a.md && git commit -q -m files")
                            .status == 0);
                const std::string plant =
                    "printf '*.txt filter=crypt\\n' > .gitattributes && printf '*.md diff=conv\\n' "
                    "> "
                    "docs/.gitattributes";
                const std::string next =
                    "echo more >> secret.txt && git add secret.txt && echo b >> docs/a.md && "
                    "git status --short && git diff docs/a.md";
                Result bare = w.shell(git + plant + " && " + next +
                                      "; rm -f .gitattributes docs/.gitattributes; "
                                      "git reset -q --hard");
                INFO(bare.out);
                REQUIRE(present(w.marker("filter")));
                REQUIRE(present(w.marker("diff")));
                forget_markers(w, {"filter", "diff"});

                Result r = w.caged(plant, layer ? w.layer_policy() : w.snapshot_policy());
                INFO(r.out);
                CHECK(r.status == 0);
                CHECK(says_held(r, ".gitattributes", "created"));
                CHECK(says_held(r, "docs/.gitattributes", "created"));
                const std::string step = held_step(r);
                REQUIRE(step.size() == 16);
                CHECK_FALSE(present(w.ws / ".gitattributes"));
                CHECK_FALSE(present(w.ws / "docs/.gitattributes"));

                Result after = w.shell(git + next);
                INFO(after.out);
                CHECK(after.status == 0);
                CHECK_FALSE(present(w.marker("filter")));
                CHECK_FALSE(present(w.marker("diff")));

                Result land = tc(w, {"land", step});
                INFO(land.out);
                CHECK(land.status == 0);
                CHECK(w.read(".gitattributes") == "*.txt filter=crypt\n");
                CHECK(w.read("docs/.gitattributes") == "*.md diff=conv\n");
                Result landed = w.shell(
                    git + "echo again >> secret.txt && git add secret.txt && git diff docs/a.md");
                INFO(landed.out);
                CHECK(present(w.marker("filter")));  // the landed change is the step's, and obeyed
                CHECK(present(w.marker("diff")));
            }
        }
    }
}

TEST_CASE(
    "a Python module planted beside the root does not run in the user's own filter, which imports "
    "its name",
    "[held][git][filter][shadow]") {
    if (!have("/usr/bin/python3")) {
        WARN("python3 is not installed: skipped");
        return;
    }
    for (As who : users()) {
        for (const bool layer : {false, true}) {
            DYNAMIC_SECTION("as " << name_of(who) << (layer ? ", in a layer" : ", in place")) {
                Workspace w(who);
                ForgetChanges forget{w};
                // The user's filter runs Python with the repository's top as its working directory
                // (as nbstripout's `python -m nbstripout` does): the directory comes first on its
                // path.
                const std::string git =
                    user_gitconfig(w,
                                   "[filter \"tidy\"]\n"
                                   "\tclean = \"/usr/bin/python3 -c 'import csv, "
                                   "sys; sys.stdout.write(sys.stdin.read())'\"\n"
                                   "\tsmudge = cat\n");
                w.put(".gitattributes", "*.csv filter=tidy\n");
                w.put("data.csv", "a,b\n");
                w.own();
                REQUIRE(w.shell(git + "git add .gitattributes data.csv && git commit -q -m data")
                            .status == 0);
                const std::string plant =
                    "printf 'open(\"" + w.marker("shadow") + "\", \"w\")\\n' > csv.py";
                const std::string next = "echo 1,2 >> data.csv && git add data.csv";
                Result bare =
                    w.shell(git + plant + " && " + next + "; rm csv.py; git reset -q --hard");
                INFO(bare.out);
                REQUIRE(present(w.marker("shadow")));
                forget_markers(w, {"shadow"});

                Result r = w.caged(plant, layer ? w.layer_policy() : w.snapshot_policy());
                INFO(r.out);
                CHECK(r.status == 0);
                CHECK(says_held(r, "csv.py", "created"));
                const std::string step = held_step(r);
                REQUIRE(step.size() == 16);
                Result after = w.shell(git + next);
                INFO(after.out);
                CHECK(after.status == 0);
                CHECK_FALSE(present(w.marker("shadow")));

                Result land = tc(w, {"land", step, "csv.py"});
                INFO(land.out);
                CHECK(land.status == 0);
                (void)w.shell(git + "echo 3,4 >> data.csv && git add data.csv");
                CHECK(present(w.marker("shadow")));
            }
        }
    }
}

TEST_CASE(
    "pre-commit: a changed configuration, or a module shadowing pre-commit, does not run on the "
    "next commit",
    "[held][hooks][pre-commit]") {
    if (!have("/usr/bin/pre-commit")) {
        WARN("pre-commit is not installed: skipped");
        return;
    }
    for (As who : users()) {
        for (const bool layer : {false, true}) {
            DYNAMIC_SECTION("as " << name_of(who) << (layer ? ", in a layer" : ", in place")) {
                Workspace w(who);
                ForgetChanges forget{w};
                // Only a local hook of the `system` language: pre-commit fetches nothing. Its cache
                // lives in the test's directory.
                const std::string pc =
                    "export PRE_COMMIT_HOME=" + (w.base / "pre-commit-home").string() + "; ";
                auto config = [](const std::string& entry) {
                    return "repos:\n- repo: local\n  hooks:\n  - id: check\n    name: check\n    "
                           "entry: " +
                           entry +
                           "\n    language: system\n    always_run: true\n    pass_filenames: "
                           "false\n";
                };
                w.put(".pre-commit-config.yaml", config("touch " + w.marker("user-hook")));
                w.own();
                Result setup = w.shell(
                    pc +
                    "git add .pre-commit-config.yaml && git commit -q --no-verify -m config && "
                    "pre-commit install");
                INFO(setup.out);
                REQUIRE(setup.status == 0);
                Result ok = w.shell(pc + "git commit -q --allow-empty -m ok");
                INFO(ok.out);
                REQUIRE(present(w.marker("user-hook")));

                std::string planted_config = config("touch " + w.marker("config"));
                std::string printf_config;  // the planted file as one printf
                for (char c : planted_config)
                    printf_config += c == '\n' ? std::string("\\n") : std::string(1, c);
                const std::string plant_config =
                    "printf '" + printf_config + "' > .pre-commit-config.yaml";
                // The installed hook runs `python3 -mpre_commit` in the repository's top directory.
                const std::string plant_module =
                    "printf 'open(\"" + w.marker("shadow") + "\", \"w\")\\n' > pre_commit.py";
                for (const auto& [plant, marker] :
                     {std::pair{plant_config, "config"}, std::pair{plant_module, "shadow"}}) {
                    Result bare =
                        w.shell(pc + plant +
                                " && git add .pre-commit-config.yaml && "
                                "git commit -q --allow-empty -m bare; git reset -q --hard HEAD~1; "
                                "rm -f pre_commit.py");
                    INFO(bare.out);
                    REQUIRE(present(w.marker(marker)));
                }
                forget_markers(w, {"config", "shadow", "user-hook"});

                Result r = w.caged(plant_config + " && " + plant_module,
                                   layer ? w.layer_policy() : w.snapshot_policy());
                INFO(r.out);
                CHECK(r.status == 0);
                CHECK(says_held(r, ".pre-commit-config.yaml", "changed"));
                CHECK(says_held(r, "pre_commit.py", "created"));
                const std::string step = held_step(r);
                REQUIRE(step.size() == 16);

                // The user's next commit: the user's own hook runs, nothing planted does.
                Result ci = w.shell(pc + "git commit -q --allow-empty -m after");
                INFO(ci.out);
                CHECK(ci.status == 0);
                CHECK(present(w.marker("user-hook")));
                CHECK_FALSE(present(w.marker("config")));
                CHECK_FALSE(present(w.marker("shadow")));

                // Landed, each is obeyed: the configuration (which pre-commit wants staged) first.
                Result land = tc(w, {"land", step, ".pre-commit-config.yaml"});
                INFO(land.out);
                CHECK(land.status == 0);
                Result c1 = w.shell(
                    pc +
                    "git add .pre-commit-config.yaml && git commit -q --allow-empty -m landed");
                INFO(c1.out);
                CHECK(present(w.marker("config")));
                Result land2 = tc(w, {"land", step, "pre_commit.py"});
                INFO(land2.out);
                CHECK(land2.status == 0);
                (void)w.shell(pc + "git commit -q --allow-empty -m shadowed");
                CHECK(present(w.marker("shadow")));
            }
        }
    }
}

TEST_CASE(
    "hooks under core.hooksPath (husky's, a plain directory): a planted hook does not run on the "
    "next commit, "
    "and lands from the step's layer",
    "[held][hooks][husky]") {
    for (As who : users()) {
        // husky 8 points core.hooksPath at .husky; husky 9 at .husky/_, whose stubs run
        // .husky/<hook>; other projects at a directory of their own (git config core.hooksPath
        // githooks).
        for (const std::string hooks_path : {".husky", ".husky/_", "githooks"}) {
            DYNAMIC_SECTION("as " << name_of(who) << ", core.hooksPath " << hooks_path) {
                Workspace w(who);
                ForgetChanges forget{w};
                const std::string hook =
                    (hooks_path == "githooks" ? "githooks" : ".husky") + std::string("/pre-commit");
                w.put(hook, "#!/bin/sh\ntouch " + w.marker("user-hook") + "\n", 0755);
                if (hooks_path == ".husky/_")
                    w.put(".husky/_/pre-commit",
                          "#!/bin/sh\nexec \"$(dirname \"$0\")/../pre-commit\"\n", 0755);
                w.own();
                REQUIRE(w.git({"config", "core.hooksPath", hooks_path}).status == 0);
                const std::string plant =
                    "printf '#!/bin/sh\\ntouch " + w.marker("evil") + "\\n' > " + hook;
                // The hooks are the user's own files, not committed: the commit undone, the hook
                // put back.
                Result bare = w.shell(
                    plant +
                    " && git commit -q --allow-empty -m bare && git reset -q --hard HEAD~1");
                INFO(bare.out);
                REQUIRE(present(w.marker("evil")));
                w.put(hook, "#!/bin/sh\ntouch " + w.marker("user-hook") + "\n", 0755);
                forget_markers(w, {"evil", "user-hook"});

                // Writing in place: the after-step check puts the hook back and says so.
                Result r = w.caged(plant, w.snapshot_policy());
                INFO(r.out);
                CHECK(r.status == toolcage::cage::kTamperExit);
                CHECK(r.out.find("toolcage run: tamper: " + hook + " changed; restored") !=
                      std::string::npos);
                Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
                INFO(ci.out);
                CHECK(ci.status == 0);
                CHECK(present(w.marker("user-hook")));
                CHECK_FALSE(present(w.marker("evil")));

                // In the step's layer: held (by the hold class, or put back by the after-step
                // check, which then says so in the exit status), the step's version kept for a
                // person.
                forget_markers(w, {"user-hook"});
                Result l = w.caged(plant, w.layer_policy());
                INFO(l.out);
                CHECK((l.status == 0 || l.status == toolcage::cage::kTamperExit));
                CHECK(says_held(l, hook, "changed"));
                Result ci2 = w.git({"commit", "-q", "--allow-empty", "-m", "after layer"});
                INFO(ci2.out);
                CHECK(present(w.marker("user-hook")));
                CHECK_FALSE(present(w.marker("evil")));
                const std::string step = held_step(l);
                REQUIRE(step.size() == 16);
                Result land = tc(w, {"land", step, hook});
                INFO(land.out);
                CHECK(land.status == 0);
                CHECK(w.read(hook).find("marker-evil") != std::string::npos);
                Result ci3 = w.git({"commit", "-q", "--allow-empty", "-m", "landed"});
                INFO(ci3.out);
                CHECK(present(w.marker("evil")));
            }
        }
    }
}

TEST_CASE(
    "a hook under core.hooksPath planted by a layered step whose supervisor is killed is held, not "
    "landed",
    "[held][hooks][husky][kill]") {
    for (As who : users()) {
        for (const std::string hooks_path : {".husky", "githooks"}) {
            DYNAMIC_SECTION("as " << name_of(who) << ", core.hooksPath " << hooks_path) {
                Workspace w(who);
                ForgetChanges forget{w};
                const std::string hook = hooks_path + "/pre-commit";
                w.put(hook, "#!/bin/sh\ntouch " + w.marker("user-hook") + "\n", 0755);
                w.own();
                REQUIRE(w.git({"config", "core.hooksPath", hooks_path}).status == 0);
                const std::string policy = w.layer_policy();
                run_killed(w, policy,
                           "printf '#!/bin/sh\\ntouch " + w.marker("evil") + "\\n' > " + hook);
                // The next step in the workspace lands the killed one's layer first.
                Result next = w.caged("true", policy);
                INFO(next.out);
                CHECK(next.out.find("was killed: landing what it changed") != std::string::npos);
                CHECK(says_held(next, hook, "changed"));
                Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
                INFO(ci.out);
                CHECK(ci.status == 0);
                CHECK(present(w.marker("user-hook")));
                CHECK_FALSE(present(w.marker("evil")));
                const std::string step = held_step(next);
                REQUIRE(step.size() == 16);
                Result land = tc(w, {"land", step, hook});
                INFO(land.out);
                CHECK(land.status == 0);
                (void)w.git({"commit", "-q", "--allow-empty", "-m", "landed"});
                CHECK(present(w.marker("evil")));
            }
        }
    }
}

TEST_CASE(
    "husky's hooks before core.hooksPath is set (a fresh clone): a planted hook is held as a "
    "dot-directory",
    "[held][hooks][husky]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            Result r = w.caged("mkdir -p .husky && printf '#!/bin/sh\\ntouch " + w.marker("evil") +
                                   "\\n' > .husky/pre-commit && chmod +x .husky/pre-commit",
                               w.policy());
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(says_held(r, ".husky", "created"));
            const std::string step = held_step(r);
            REQUIRE(step.size() == 16);
            // The user's `npm install` runs husky's prepare script, which sets core.hooksPath.
            REQUIRE(w.git({"config", "core.hooksPath", ".husky"}).status == 0);
            Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
            INFO(ci.out);
            CHECK(ci.status == 0);
            CHECK_FALSE(present(w.marker("evil")));
            Result land = tc(w, {"land", step});
            INFO(land.out);
            CHECK(land.status == 0);
            (void)w.git({"commit", "-q", "--allow-empty", "-m", "landed"});
            CHECK(present(w.marker("evil")));
        }
    }
}
