// The step's layer: the real `toolcage run`, as root and as nobody. While a step runs the
// workspace does not change; when it ends its changeset lands (added, changed, removed, mode
// changes, a replaced directory, symlinks as links, never followed); a step whose supervisor is
// killed is landed by the next toolcage call; `toolcage doctor` says which mechanism is in effect,
// and cage.layer "off" (the default) gives the snapshot and restore.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "cage/integrity/step_journal.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;
using nlohmann::json;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

std::vector<As> users() {
    std::vector<As> out = {As::root};
    if (::geteuid() == 0) out.push_back(As::nobody);
    return out;
}

std::string bin() {
    return testsupport::reachable(TOOLCAGE_BIN);
}

std::string changes_dir(const Workspace& w) {
    return toolcage::cage::journal_dir(fs::weakly_canonical(w.ws).string(),
                                       state_dir_of(w.who) + "/changes");
}

struct ForgetChanges {
    const Workspace& w;
    ~ForgetChanges() {
        std::error_code ec;
        fs::remove_all(changes_dir(w), ec);
    }
};

// `toolcage run` of `script` in the workspace with `policy`, watched (support.h).
std::vector<std::string> run_args(const Workspace& w, const std::string& policy,
                                  const std::string& script) {
    return {bin(),         "run", "--policy", policy, "--workdir",
            w.ws.string(), "--",  "/bin/sh",  "-c",   script};
}

std::string held_step(const std::string& out) {
    std::smatch m;
    static const std::regex re("toolcage land ([0-9a-f]{16}) \\[PATH");
    if (std::regex_search(out, m, re)) return m[1];
    return {};
}

}  // namespace

TEST_CASE("a caged step writes into a layer: the workspace changes only when the step ends",
          "[layer][cage]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            w.put("keep.txt", "before\n");
            w.own();
            WatchedRun step(
                w, run_args(w, w.layer_policy(),
                            "echo new > new.txt && echo after > keep.txt && cat keep.txt && "
                            "echo STARTED && sleep 1"));
            REQUIRE(step.wait_for("STARTED"));
            // The step sees its own writes; the workspace has none of them yet.
            CHECK(step.seen.find("after") != std::string::npos);
            CHECK_FALSE(present(w.ws / "new.txt"));
            CHECK(w.read("keep.txt") == "before\n");
            CHECK(step.finish() == 0);
            INFO(step.seen);
            CHECK(w.read("new.txt") == "new\n");
            CHECK(w.read("keep.txt") == "after\n");
            CHECK(step.seen.find("held:") == std::string::npos);
        }
    }
}

TEST_CASE(
    "a layer's changeset lands whole: removals, a replaced directory, modes, symlinks as links",
    "[layer][cage]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            w.put("gone.txt", "x\n");
            w.put("run.sh", "#!/bin/sh\n", 0644);
            w.put("olddir/a", "a\n");
            w.put("olddir/b", "b\n");
            w.put("tree/sub/f", "f\n");
            w.put("file-to-dir", "plain\n");
            fs::create_directories(w.base / "outside");
            ::symlink("keep.txt", (w.ws / "link").c_str());
            w.own();
            ::chmod((w.base / "outside").c_str(), 0777);
            Result r = w.caged(
                "rm gone.txt && chmod +x run.sh && rm -rf olddir && mkdir olddir && echo c > "
                "olddir/c && "
                "rm -rf tree && mkdir -p newdir/deep && echo d > newdir/deep/d && ln -sfn "
                "elsewhere link && "
                "ln -s ../outside escape && rm file-to-dir && mkdir file-to-dir && echo in > "
                "file-to-dir/in && "
                "chmod 0700 newdir",
                w.layer_policy());
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK_FALSE(present(w.ws / "gone.txt"));
            struct stat st {};
            REQUIRE(::stat((w.ws / "run.sh").c_str(), &st) == 0);
            CHECK((st.st_mode & 0100) != 0);
            CHECK(w.read("olddir/c") == "c\n");
            CHECK_FALSE(present(w.ws / "olddir/a"));
            CHECK_FALSE(present(w.ws / "olddir/b"));
            CHECK_FALSE(present(w.ws / "tree"));
            CHECK(w.read("newdir/deep/d") == "d\n");
            REQUIRE(::lstat((w.ws / "newdir").c_str(), &st) == 0);
            CHECK((st.st_mode & 07777) == 0700);
            REQUIRE(::lstat((w.ws / "link").c_str(), &st) == 0);
            CHECK(S_ISLNK(st.st_mode));
            CHECK(fs::read_symlink(w.ws / "link") == "elsewhere");
            // A symlink lands as a link: nothing is written where it leads.
            REQUIRE(::lstat((w.ws / "escape").c_str(), &st) == 0);
            CHECK(S_ISLNK(st.st_mode));
            CHECK(fs::is_empty(w.base / "outside"));
            CHECK(w.read("file-to-dir/in") == "in\n");
            // Nothing of the landing is left: no temporary names, no layer.
            for (const auto& e : fs::directory_iterator(w.ws))
                CHECK(e.path().filename().string().find(".toolcage-") != 0);
            std::error_code ec;
            for (fs::recursive_directory_iterator it(changes_dir(w), ec), end; !ec && it != end;
                 it.increment(ec))
                CHECK(it->path().filename() != "layer");
        }
    }
}

TEST_CASE("a layered step holds the hold class and lands git's own work", "[layer][held]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            Result r = w.caged(
                "echo 'git=/bin/false' > .npmrc && echo x >> README && git add README && "
                "git -c user.name=t -c user.email=t@example.org commit -q -m layered && mkdir -p "
                "node_modules/.bin && echo y > "
                "node_modules/.bin/y",
                w.layer_policy());
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("held: .npmrc created") != std::string::npos);
            CHECK_FALSE(present(w.ws / ".npmrc"));
            CHECK(present(w.ws / "node_modules/.bin/y"));
            Result log = w.git({"log", "--format=%s", "-1"});
            CHECK(log.out == "layered\n");
            Result st = w.git({"status", "--porcelain"});
            INFO(st.out);
            CHECK(st.out.find("README") == std::string::npos);
            const std::string step = held_step(r.out);
            REQUIRE(step.size() == 16);
            Result land = run(as_user(who, {bin(), "land", step}), w.env(), w.ws.string());
            INFO(land.out);
            CHECK(land.status == 0);
            CHECK(w.read(".npmrc") == "git=/bin/false\n");
        }
    }
}

TEST_CASE("a step that changes nothing in its layer leaves nothing behind", "[layer][cage]") {
    Workspace w(As::root);
    ForgetChanges forget{w};
    Result r = w.caged("cat README >/dev/null", w.layer_policy());
    INFO(r.out);
    CHECK(r.status == 0);
    std::error_code ec;
    CHECK((!fs::exists(changes_dir(w), ec) || fs::is_empty(changes_dir(w), ec)));
}

TEST_CASE("a layered step whose supervisor is killed is landed by the next toolcage call",
          "[layer][kill]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            const std::string policy = w.layer_policy();
            {
                WatchedRun step(
                    w, run_args(w, policy,
                                "echo ok > landed.txt && echo 'git=/bin/false' > .npmrc && "
                                "echo STARTED && sleep 60"));
                REQUIRE(step.wait_for("STARTED"));
                CHECK_FALSE(present(w.ws / "landed.txt"));
                ::kill(step.pid, SIGKILL);
                step.finish();
            }
            Result next = w.caged("true", policy);
            INFO(next.out);
            CHECK(next.status == 0);
            CHECK(next.out.find("was killed: landing what it changed") != std::string::npos);
            CHECK(next.out.find("held: .npmrc created") != std::string::npos);
            CHECK(w.read("landed.txt") == "ok\n");
            CHECK_FALSE(present(w.ws / ".npmrc"));
            const std::string step = held_step(next.out);
            REQUIRE(step.size() == 16);
            Result land = run(as_user(who, {bin(), "land", step}), w.env(), w.ws.string());
            INFO(land.out);
            CHECK(land.status == 0);
            CHECK(w.read(".npmrc") == "git=/bin/false\n");
        }
    }
}

TEST_CASE(
    "toolcage doctor says whether steps write into a layer, and cage.layer off gives the snapshot",
    "[layer][doctor]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            Result on = run(as_user(who, {bin(), "doctor", "--policy", w.layer_policy()}), w.env(),
                            w.ws.string());
            INFO(on.out);
            CHECK(on.out.find("held changes: a layer: each step writes into an overlay") !=
                  std::string::npos);
            const std::string off = w.policy_with("layer-off", {{"cage", {{"layer", "off"}}}});
            Result d =
                run(as_user(who, {bin(), "doctor", "--policy", off}), w.env(), w.ws.string());
            INFO(d.out);
            CHECK(
                d.out.find("held changes: snapshot and restore (no layer: cage.layer is \"off\"") !=
                std::string::npos);
            // Without the layer a step writes in place, and what it changes in the hold class is
            // put back after it, as before there was one.
            WatchedRun step(w,
                            run_args(w, off, "echo ok > in-place.txt && echo STARTED && sleep 1"));
            REQUIRE(step.wait_for("STARTED"));
            CHECK(present(w.ws / "in-place.txt"));
            CHECK(step.finish() == 0);
        }
    }
}

TEST_CASE("a layered step's planting in the protected paths is held, never landed, and reported",
          "[layer][integrity]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            const std::string config = w.read(".git/config");
            Result r = w.caged("printf '" + w.evil_script("fsmonitor") +
                                   "' > evil.sh && chmod +x evil.sh && git config core.fsmonitor "
                                   "\"$PWD/evil.sh\" && "
                                   "printf '" +
                                   w.evil_script("hook") +
                                   "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
                               w.layer_policy());
            INFO(r.out);
            CHECK(r.status == 3);
            CHECK(r.out.find("toolcage run: tamper: .git/config changed; held: never landed") !=
                  std::string::npos);
            CHECK(r.out.find("toolcage run: tamper: .git/hooks/pre-commit created; held: never "
                             "landed") != std::string::npos);
            CHECK(r.out.find("; restored") == std::string::npos);
            CHECK(r.out.find("held: .git/config changed") != std::string::npos);
            CHECK(w.read(".git/config") == config);
            CHECK_FALSE(present(w.ws / ".git/hooks/pre-commit"));
            CHECK(present(w.ws / "evil.sh"));  // ordinary: it landed
            Result st = w.git({"status", "--short"});
            Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
            INFO(ci.out);
            CHECK(ci.status == 0);
            CHECK_FALSE(present(w.marker("fsmonitor")));
            CHECK_FALSE(present(w.marker("hook")));
            // The step's version waits for a person.
            const std::string step = held_step(r.out);
            REQUIRE(step.size() == 16);
            Result list = run(as_user(who, {bin(), "changes", "--step", step, "--json"}), w.env(),
                              w.ws.string());
            INFO(list.out);
            CHECK(list.out.find(".git/config") != std::string::npos);
        }
    }
}

TEST_CASE(
    "a layered step that replaces .git leaves the workspace its repository, held and reported",
    "[layer][integrity]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            struct stat before {};
            REQUIRE(::lstat((w.ws / ".git").c_str(), &before) == 0);
            Result r = w.caged(
                "printf '" + w.evil_script("newgit") +
                    "' > evil.sh && chmod +x evil.sh && mv .git .git-old && git init -q . && "
                    "git config core.fsmonitor \"$PWD/evil.sh\"",
                w.layer_policy());
            INFO(r.out);
            CHECK(r.status == 3);
            CHECK(r.out.find("toolcage run: tamper: .git replaced by another directory; held: the "
                             "workspace keeps its own") != std::string::npos);
            struct stat after {};
            REQUIRE(::lstat((w.ws / ".git").c_str(), &after) == 0);
            CHECK(after.st_ino == before.st_ino);
            CHECK_FALSE(present(w.ws / ".git-old"));
            Result log = w.git({"log", "--format=%s"});
            INFO(log.out);
            CHECK(log.status == 0);
            CHECK_FALSE(present(w.marker("newgit")));
        }
    }
}
