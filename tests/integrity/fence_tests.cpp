// The fence around the cage, on the real kernel, as root and as nobody: the git configuration a
// step leaves is a known-inert one (submodules' and worktrees' too); the restore cannot be made
// to fail (guessed temp names, trees deeper than any recursion, symlinks in place of what is put
// back); a supervisor killed mid-step loses nothing (its daemon dies, the next run or hook
// restores); reads stay inside the policy (/dev/shm, other processes' /proc, forge's caches);
// runaway steps are bounded (fork bomb, memory bomb, file size). Each escape is asserted to fail
// and the legitimate path beside it to work.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "../hook/run_binary.h"
#include "cage/containment/step_init.h"
#include "common/git_config.h"
#include "common/proc_file.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

bool alive(pid_t pid) {
    if (pid <= 0) return false;
    if (::kill(pid, 0) != 0) return false;
    // A zombie (dead, not yet reaped by whoever inherited it) is dead.
    std::string text = toolcage::read_proc_file(pid, "stat");
    std::size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (cond()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return cond();
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// `toolcage run` started in the background (its pid is the supervisor's: setpriv execs it).
struct Background {
    pid_t pid = -1;
    fs::path out;
    int status = -1;
    Background(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::string& cwd, fs::path output)
        : out(std::move(output)) {
        std::vector<std::string> env_s;
        for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
        testsupport::keep_suite_state(env_s);
        pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            int null = ::open("/dev/null", O_RDONLY);
            ::dup2(null, 0);
            if (::chdir(cwd.c_str()) != 0) _exit(98);
            std::vector<char*> a, e;
            for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
            a.push_back(nullptr);
            for (auto& s : env_s) e.push_back(s.data());
            e.push_back(nullptr);
            ::execve(a[0], a.data(), e.data());
            _exit(99);
        }
    }
    // Waits at most `limit`; false when it is still running.
    bool wait(std::chrono::milliseconds limit) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < end) {
            int st = 0;
            pid_t p = ::waitpid(pid, &st, WNOHANG);
            if (p == pid) {
                status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                pid = -1;
                return true;
            }
            std::this_thread::sleep_for(20ms);
        }
        return false;
    }
    ~Background() {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
};

std::vector<std::string> run_argv(const Workspace& w, const std::string& policy, const std::string& script) {
    return as_user(w.who, {testsupport::reachable(TOOLCAGE_BIN), "run", "--policy", policy, "--workdir", w.ws.string(), "--", "/bin/sh",
                           "-c", script});
}

bool namespaces_available(As who) {
    // Asked as the test's user: the answer differs between root and nobody on some kernels.
    Result r = run(as_user(who, {"/usr/bin/unshare", "--user", "--pid", "--mount", "--fork", "--map-current-user",
                                 "--mount-proc", "/bin/true"}),
                   {{"PATH", "/usr/bin:/bin"}});
    return r.status == 0;
}

// A policy of default's lists with `edit` applied.
std::string policy_with(const Workspace& w, const std::string& name, const std::function<void(json&)>& edit) {
    std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/default.json");
    json p = json::parse(f, nullptr, true, true);
    p["name"] = name;
    edit(p);
    fs::path file = w.base / (name + ".json");
    std::ofstream(file) << p.dump(2);
    ::chmod(file.c_str(), 0644);
    return file.string();
}

}  // namespace

// ---- 1. the git configuration a step leaves ---------------------------------------------------

TEST_CASE("only inert git settings are kept: redirections and new keys are not", "[fence][gitconfig]") {
    using toolcage::gitconfig::first_non_inert_key;
    using toolcage::gitconfig::InertContext;
    const std::string before =
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
        "[remote \"origin\"]\n\turl = https://example.org/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        "[core]\n\tautocrlf = input\n";
    struct Case {
        std::string added;
        InertContext ctx;
        std::string key;  // "" = inert
    };
    InertContext plain, fresh{true, 0}, module{false, 3};
    const Case cases[] = {
        {"[user]\n\tname = x\n\temail = x@example.org\n", plain, ""},
        {"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n\trebase = true\n", plain, ""},
        {"[remote \"origin\"]\n\tfetch = +refs/tags/*:refs/tags/*\n", plain, ""},
        {"[core]\n\tlogallrefupdates = true\n\tignorecase = false\n\tsymlinks = true\n", plain, ""},
        {"[core]\n\tautocrlf = input\n", plain, ""},  // the user's own, unchanged
        {"[core]\n\tworktree = /tmp\n", plain, "core.worktree"},
        {"[core]\n\thooksPath = /tmp/h\n", plain, "core.hookspath"},
        {"[core]\n\tfsmonitor = ./x.sh\n", plain, "core.fsmonitor"},
        {"[core]\n\tsshCommand = ./x.sh\n", plain, "core.sshcommand"},
        {"[protocol]\n\tallow = always\n", plain, "protocol.allow"},
        {"[protocol \"ext\"]\n\tallow = always\n", plain, "protocol.ext.allow"},
        {"[remote \"origin\"]\n\turl = ext::sh -c touch% /tmp/x\n", plain, "remote.origin.url"},
        {"[remote \"origin\"]\n\tpushurl = https://evil.example/r.git\n", plain, "remote.origin.pushurl"},
        {"[remote \"evil\"]\n\turl = https://evil.example/r.git\n", plain, "remote.evil.url"},
        {"[remote \"evil\"]\n\turl = https://example.org/r.git\n", fresh, ""},  // git clone in the cage
        {"[url \"https://evil.example/\"]\n\tinsteadOf = https://github.com/\n", plain, "url.https://evil.example/.insteadof"},
        {"[include]\n\tpath = ../cfg\n", plain, "include.path"},
        {"[includeIf \"onbranch:main\"]\n\tpath = ../cfg\n", plain, "includeif.onbranch:main.path"},
        {"[extensions]\n\tworktreeConfig = true\n", plain, "extensions.worktreeconfig"},
        {"[extensions]\n\tobjectformat = sha256\n", fresh, ""},
        {"[gc]\n\tauto = 0\n", plain, "gc.auto"},
        {"[submodule \"lib\"]\n\tactive = true\n", plain, ""},
        {"[submodule \"lib\"]\n\tupdate = !sh x\n", plain, "submodule.lib.update"},
        {"[core]\n\tworktree = ../../../lib\n", module, ""},  // what git writes for a submodule
        {"[core]\n\tworktree = ../../../../elsewhere\n", module, "core.worktree"},
        {"[core]\n\tworktree = ../../../.git/x\n", module, "core.worktree"},
        {"[core\n", plain, "(unreadable config)"},
    };
    for (const auto& c : cases) {
        INFO(c.added);
        CHECK(first_non_inert_key(before + c.added, before, c.ctx) == c.key);
    }
    // A URL the user had, changed by the step, is restored.
    std::string changed = before;
    changed.replace(changed.find("https://example.org/r.git"), 25, "https://evil.example/r.git");
    CHECK(first_non_inert_key(changed, before, plain) == "remote.origin.url");
}

TEST_CASE("a caged step's redirecting git settings are restored, inert ones kept", "[fence][gitconfig][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            REQUIRE(w.git({"remote", "add", "origin", "https://example.org/r.git"}).status == 0);
            std::string policy = w.policy();
            const std::string before = w.read(".git/config");
            for (const char* key : {"core.worktree /tmp", "protocol.allow always", "remote.origin.url ext::sh",
                                    "url.https://evil.example/.insteadOf https://github.com/", "include.path ../cfg",
                                    "core.hooksPath /tmp", "remote.origin.pushurl https://evil.example/x"}) {
                INFO(key);
                Result r = w.caged(std::string("git config ") + key, policy);
                INFO(r.out);
                CHECK(r.status == 3);
                CHECK(r.out.find("tamper: .git/config changed; restored") != std::string::npos);
                CHECK(w.read(".git/config") == before);
            }
            // The legitimate path: identity and an upstream are kept, the run is clean.
            Result ok = w.caged("git config user.name Someone && git config branch.main.remote origin && "
                                "git config branch.main.merge refs/heads/main",
                                policy);
            INFO(ok.out);
            CHECK(ok.status == 0);
            CHECK(w.read(".git/config").find("name = Someone") != std::string::npos);
        }
    }
}

TEST_CASE("submodules' and linked worktrees' git directories are protected too", "[fence][gitconfig][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.policy();
            // A submodule's git directory and a linked worktree, as git makes them.
            w.put(".git/modules/lib/HEAD", "ref: refs/heads/main\n");
            w.put(".git/modules/lib/config", "[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../lib\n");
            w.put(".git/modules/lib/hooks/pre-commit.sample", "#!/bin/sh\n", 0755);
            w.put(".git/worktrees/w/commondir", "../..\n");
            w.put(".git/worktrees/w/gitdir", (w.base / "w/.git").string() + "\n");
            w.put(".git/worktrees/w/HEAD", "ref: refs/heads/w\n");
            w.own();
            const std::string module_config = w.read(".git/modules/lib/config");
            Result r = w.caged(
                "printf '[core]\\n\\tfsmonitor = /tmp/x\\n' >> .git/modules/lib/config && "
                "printf '#!/bin/sh\\n' > .git/modules/lib/hooks/post-checkout && chmod +x .git/modules/lib/hooks/post-checkout && "
                "echo /tmp/elsewhere > .git/worktrees/w/commondir && "
                "mkdir -p .git/modules/new/hooks && echo 'ref: refs/heads/x' > .git/modules/new/HEAD && "
                "printf '[core]\\n\\tpager = ./x\\n' > .git/modules/new/config && "
                "ln -s ../../evil .git/modules/link",
                policy);
            INFO(r.out);
            CHECK(r.status == 3);
            CHECK(w.read(".git/modules/lib/config") == module_config);
            CHECK_FALSE(present(w.ws / ".git/modules/lib/hooks/post-checkout"));
            CHECK(present(w.ws / ".git/modules/lib/hooks/pre-commit.sample"));
            CHECK(w.read(".git/worktrees/w/commondir") == "../..\n");
            CHECK_FALSE(present(w.ws / ".git/modules/new/config"));
            CHECK_FALSE(present(w.ws / ".git/modules/link"));
            for (const char* line : {".git/modules/lib/config changed; restored", ".git/modules/lib/hooks/post-checkout created; removed",
                                     ".git/worktrees/w/commondir changed; restored", ".git/modules/new/config created; removed",
                                     ".git/modules/link created; removed"}) {
                INFO(line);
                CHECK(r.out.find(line) != std::string::npos);
            }
        }
    }
}

// ---- 2. the restore cannot be made to fail -----------------------------------------------------

TEST_CASE("the restore cannot be made to fail: guessed temp names, deep trees, planted symlinks", "[fence][restore][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.policy();
            w.put(".mcp.json", "{\"mcpServers\": {}}\n");
            w.put(".claude/settings.json", "{}\n");
            w.own();
            const std::string config = w.read(".git/config"), mcp = w.read(".mcp.json");
            fs::path outside = w.base / "outside";
            fs::create_directories(outside);
            ::chmod(outside.c_str(), 0777);
            std::ofstream(outside / "config") << "untouched\n";
            ::chmod((outside / "config").c_str(), 0666);
            // Temp names as a restore with predictable names would use (any pid, any serial),
            // as directories, in every directory a file is put back into; a .claude tree
            // 2100 deep (beyond PATH_MAX, beyond any recursion limit) with a settings.json at the
            // bottom; .git/config and .git/hooks replaced by symlinks out of the workspace.
            std::string script =
                "for d in . .git .claude; do i=1; while [ $i -le 300 ]; do "
                "mkdir -p \"$d/.toolcage-restore-$i-1\" \"$d/.toolcage-restore-$i\" 2>/dev/null; i=$((i+1)); done; done; "
                "echo '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}' > .mcp.json && "
                "(cd .claude && i=0; while [ $i -lt 2100 ]; do mkdir d && cd d || exit 1; i=$((i+1)); done; "
                " echo '{\"hooks\": {\"x\": 1}}' > settings.json) && "
                "rm .git/config && ln -s " + (outside / "config").string() + " .git/config && "
                "rm -rf .git/hooks && ln -s " + outside.string() + " .git/hooks";
            Result r = w.caged(script, policy);
            INFO(r.out.substr(0, 4000));
            CHECK(r.status == 3);
            CHECK(w.read(".git/config") == config);
            CHECK(fs::is_directory(fs::symlink_status(w.ws / ".git/hooks")));
            CHECK(w.read(".mcp.json") == mcp);
            CHECK(w.read(".claude/settings.json") == "{}\n");
            CHECK_FALSE(present(w.ws / ".claude/d"));
            CHECK(slurp(outside / "config") == "untouched\n");
            CHECK(r.out.find("not restored") == std::string::npos);
            CHECK(r.out.find("not removed") == std::string::npos);
            // Git works afterwards, uncaged.
            CHECK(w.git({"status", "--short"}).status == 0);
        }
    }
}

// ---- 3. a killed supervisor loses nothing ----------------------------------------------------------

namespace {

// A step that daemonises (setsid and a double fork) a loop re-planting a pre-commit hook, and
// waits. The daemon is found by the name it runs under (its pid inside the step's PID namespace
// means nothing outside).
std::string daemon_name(const Workspace& w) { return "toolcage-daemon-" + w.base.filename().string(); }

std::string daemon_script(const Workspace& w) {
    return "printf '#!/bin/sh\\nwhile :; do printf \"#!/bin/sh\\\\ntouch " + w.marker("daemon") +
           "\\\\n\" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; sleep 0.05; done\\n' > plant.sh && "
           "setsid bash -c '(exec -a " + daemon_name(w) + " sh ./plant.sh) &' && sleep 60";
}

// The daemon's pid on the host, or -1.
pid_t find_daemon(const Workspace& w) {
    const std::string name = daemon_name(w);
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::string n = e.path().filename();
        if (n.empty() || n[0] < '0' || n[0] > '9') continue;
        std::string cmd = slurp(e.path() / "cmdline");
        if (cmd.rfind(name, 0) == 0 && alive(std::stoi(n))) return std::stoi(n);
    }
    return -1;
}

void start_daemon_step(const Workspace& w, Background& step) {
    bool started = wait_for([&] { return find_daemon(w) > 0 && present(w.ws / ".git/hooks/pre-commit"); }, 20s);
    INFO(slurp(step.out));
    REQUIRE(started);
}

void assert_restored_and_quiet(const Workspace& w) {
    CHECK_FALSE(present(w.ws / ".git/hooks/pre-commit"));
    std::this_thread::sleep_for(300ms);  // a live daemon would have planted it again by now
    CHECK_FALSE(present(w.ws / ".git/hooks/pre-commit"));
    CHECK(w.git({"commit", "-q", "--allow-empty", "-m", "after"}).status == 0);
    CHECK_FALSE(present(w.marker("daemon")));
}

}  // namespace

TEST_CASE("SIGKILL of the supervisor: the daemon dies, the next run restores", "[fence][kill][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.snapshot_policy();
            bool pidns = namespaces_available(who);
            Background step(run_argv(w, policy, daemon_script(w)), w.env(), w.ws.string(), w.base / "step.out");
            start_daemon_step(w, step);
            pid_t daemon = find_daemon(w);
            REQUIRE(::kill(step.pid, SIGKILL) == 0);
            REQUIRE(step.wait(10s));
            if (pidns) {
                // Its PID namespace went with the supervisor: nothing of the step is left.
                CHECK(wait_for([&] { return !alive(daemon); }, 5s));
            } else {
                WARN("no PID namespace here: the daemon is left for the next run to kill");
            }
            // The next run for the workspace kills what is left and restores before its own step.
            Result next = w.caged("true", policy);
            INFO(next.out);
            CHECK(next.status == 0);
            CHECK(next.out.find(".git/hooks/pre-commit created; removed (by the next toolcage call") != std::string::npos);
            CHECK_FALSE(alive(daemon));
            assert_restored_and_quiet(w);
            // The journal is gone: a third run reports nothing.
            Result third = w.caged("true", policy);
            CHECK(third.status == 0);
            CHECK(third.out.find("tamper") == std::string::npos);
        }
    }
}

TEST_CASE("SIGTERM of the supervisor: the step and its daemon end, the restore is done", "[fence][kill][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.snapshot_policy();
            if (!namespaces_available(who)) {
                WARN("skipped: no PID namespace here (the SIGKILL case covers the journal)");
                continue;
            }
            Background step(run_argv(w, policy, daemon_script(w)), w.env(), w.ws.string(), w.base / "step.out");
            start_daemon_step(w, step);
            pid_t daemon = find_daemon(w);
            REQUIRE(::kill(step.pid, SIGTERM) == 0);
            REQUIRE(step.wait(10s));
            std::string out = slurp(step.out);
            INFO(out);
            CHECK(step.status == 3);
            CHECK(out.find(".git/hooks/pre-commit created; removed") != std::string::npos);
            CHECK_FALSE(alive(daemon));
            assert_restored_and_quiet(w);
        }
    }
}

TEST_CASE("without user namespaces, the next run kills the daemon from the journal", "[fence][kill][cage]") {
    // A user namespace in which no further one may be made: toolcage runs there as it would on a
    // kernel that refuses them (PR_SET_PDEATHSIG, then the journal).
    if (!testsupport::can_switch_user()) {
        // --map-root-user makes this user uid 0, whose home (/root) is not theirs: no journal.
        WARN("skipped: only root keeps a state directory when mapped to root in a user namespace");
        return;
    }
    Workspace w(As::root);
    std::string policy = w.policy();
    std::vector<std::string> argv = {"/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c",
                                     "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"", "sh"};
    for (const auto& a : run_argv(w, policy, daemon_script(w))) argv.push_back(a);
    Background step(argv, w.env(), w.ws.string(), w.base / "step.out");
    start_daemon_step(w, step);
    pid_t daemon = find_daemon(w);
    REQUIRE(::kill(step.pid, SIGKILL) == 0);
    REQUIRE(step.wait(10s));
    std::this_thread::sleep_for(200ms);
    CHECK(alive(daemon));  // nothing killed it yet: a session of its own, no namespace
    Result next = w.caged("true", policy);
    INFO(next.out);
    CHECK(next.status == 0);
    CHECK(wait_for([&] { return !alive(daemon); }, 5s));
    assert_restored_and_quiet(w);
}

TEST_CASE("the hook finishes a killed step's restore before it decides", "[fence][kill][hook]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.snapshot_policy();
            Background step(run_argv(w, policy, daemon_script(w)), w.env(), w.ws.string(), w.base / "step.out");
            start_daemon_step(w, step);
            pid_t daemon = find_daemon(w);
            REQUIRE(::kill(step.pid, SIGKILL) == 0);
            REQUIRE(step.wait(10s));
            json payload = {{"session_id", "s"},       {"transcript_path", "/dev/null"},
                            {"cwd", w.ws.string()},    {"hook_event_name", "PreToolUse"},
                            {"tool_name", "Bash"},     {"tool_input", {{"command", "ls"}}}};
            std::vector<std::string> args = {"hook", "--agent", "claude"};
            args.insert(args.begin(), testsupport::reachable(TOOLCAGE_BIN));
            args = as_user(who, args);
            std::string bin = args.front();
            args.erase(args.begin());
            auto r = toolcage::test::run_binary(bin, args, payload.dump(), w.env());
            INFO(r.out << r.err);
            CHECK(r.exit_code == 0);
            CHECK_FALSE(alive(daemon));
            assert_restored_and_quiet(w);
            bool logged = false;
            for (const auto& line : w.log_lines())
                if (line.find("by the next toolcage call") != std::string::npos &&
                    line.find(".git/hooks/pre-commit") != std::string::npos)
                    logged = true;
            CHECK(logged);
        }
    }
}

// ---- 4. reads stay inside the policy -------------------------------------------------------------

TEST_CASE("/dev is narrowed and /dev/shm is the step's own", "[fence][reads][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.policy();
            std::string name = "toolcage-fence-" + std::to_string(::getpid()) + "-" + name_of(who);
            fs::path secret = fs::path("/dev/shm") / name;
            std::ofstream(secret) << "shm-secret\n";
            ::chmod(secret.c_str(), 0600);
            if (who == As::nobody) ::chown(secret.c_str(), 65534, 65534);
            Result r = w.caged("cat " + secret.string() + "; ls /dev/shm | grep -q toolcage-fence && echo LISTED; "
                               "ls /dev/disk >/dev/null 2>&1 && echo DISK-LISTED; head -c 4 /dev/urandom | wc -c; "
                               "echo x > /dev/null && echo null-ok",
                               policy);
            INFO(r.out);
            CHECK(r.out.find("shm-secret") == std::string::npos);
            CHECK(r.out.find("LISTED") == std::string::npos);
            CHECK(r.out.find("null-ok") != std::string::npos);
            CHECK(r.out.find("\n4\n") != std::string::npos);
            fs::remove(secret);
            if (namespaces_available(who)) {
                // POSIX shared memory and semaphores work, in the step's own /dev/shm.
                Result mp = w.caged("python3 -c 'import multiprocessing as m; l = m.Lock(); l.acquire(); "
                                    "print(\"lock-ok\")'",
                                    policy);
                INFO(mp.out);
                CHECK(mp.out.find("lock-ok") != std::string::npos);
            } else {
                WARN("no PID/mount namespace here: /dev/shm is not granted, POSIX shared memory fails");
            }
        }
    }
}

TEST_CASE("other processes' /proc entries are hidden where a PID namespace can be had", "[fence][reads][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            if (!namespaces_available(who)) {
                WARN("skipped: no PID namespace here (toolcage doctor says so too)");
                continue;
            }
            std::string policy = w.policy();
            // A host process of the same user with a secret on its command line.
            Background host(as_user(who, {"/bin/sh", "-c", "sleep 30", "toolcage-cmdline-secret"}), w.env(), "/",
                            w.base / "host.out");
            REQUIRE(wait_for([&] { return slurp("/proc/" + std::to_string(host.pid) + "/cmdline").find("secret") != std::string::npos; }, 5s));
            std::string init_cmdline = slurp("/proc/1/cmdline");
            Result r = w.caged("cat /proc/" + std::to_string(host.pid) + "/cmdline; echo; cat /proc/1/cmdline; echo; "
                               "cat /proc/*/cmdline | tr '\\0' ' '; echo; grep -c . /proc/self/status",
                               policy);
            INFO(r.out);
            CHECK(r.out.find("toolcage-cmdline-secret") == std::string::npos);
            if (init_cmdline.find("toolcage") == std::string::npos && !init_cmdline.empty()) {
                std::string shown = init_cmdline;
                std::replace(shown.begin(), shown.end(), '\0', ' ');
                CHECK(r.out.find(shown) == std::string::npos);
            }
            // The step's own /proc works.
            Result own = w.caged("cat /proc/self/status | grep -c '^Pid:'; ls /proc/self/fd | wc -l", policy);
            INFO(own.out);
            CHECK(own.status == 0);
            CHECK(own.out.rfind("1\n", 0) == 0);
        }
    }
}

TEST_CASE("forge grants named package caches, never ~/.cache whole", "[fence][reads][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/forge.json");
            json forge = json::parse(f, nullptr, true, true);
            // forge's own cage lists on default's, without its relay (no network in this test).
            // {home} is the user database's home in `toolcage run`: the scratch home stands for it
            // here by name, so that the test touches no real home.
            std::string policy = policy_with(w, "fence-forge", [&](json& p) {
                for (const char* k : {"read", "write", "execute"})
                    for (const auto& e : forge["cage"][k]) {
                        std::string entry = e.get<std::string>();
                        if (entry.rfind("{home}", 0) == 0) entry = w.home.string() + entry.substr(6);
                        p["cage"][k].push_back(entry);
                    }
            });
            fs::create_directories(w.home / ".cache/huggingface");
            fs::create_directories(w.home / ".cache/pip");
            fs::create_directories(w.home / ".cache/pre-commit");
            // The launcher makes the steps' caches in the user database's home; the scratch home
            // stands in for it by name here, so they are made as the launcher makes them.
            fs::create_directories(w.home / ".cache/toolcage-steps/pip");
            std::ofstream(w.home / ".cache/huggingface/token") << "hf_secret\n";
            for (const auto& e : fs::recursive_directory_iterator(w.home))
                if (who == As::nobody) ::lchown(e.path().c_str(), 65534, 65534);
            const std::string c = w.home.string() + "/.cache";
            Result r = w.caged("cat " + c + "/huggingface/token; ls " + c + "; echo planted > " + c +
                                   "/pre-commit/hook || echo precommit-refused; echo planted > " + c +
                                   "/pip/entry || echo user-pip-refused; echo cached > " + c +
                                   "/toolcage-steps/pip/entry && echo pip-ok",
                               policy);
            INFO(r.out);
            CHECK(r.out.find("hf_secret") == std::string::npos);
            CHECK(r.out.find("precommit-refused") != std::string::npos);
            CHECK_FALSE(present(w.home / ".cache/pre-commit/hook"));
            // The user's own pip cache is not the steps': a wheel planted there would be installed
            // by the user's next pip, unverified.
            CHECK(r.out.find("user-pip-refused") != std::string::npos);
            CHECK_FALSE(present(w.home / ".cache/pip/entry"));
            CHECK(r.out.find("pip-ok") != std::string::npos);
            CHECK(slurp(w.home / ".cache/toolcage-steps/pip/entry") == "cached\n");
        }
    }
}

// ---- 5. runaway steps are bounded -------------------------------------------------------------------

TEST_CASE("a fork bomb under the default limits ends in seconds and leaves no process", "[fence][limits][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.policy();
            std::string marker = "toolcage-forkbomb-" + std::to_string(::getpid());
            Background step(run_argv(w, policy, "exec -a " + marker + " bash -c 'f() { f | f & }; f; sleep 100'"), w.env(),
                            w.ws.string(), w.base / "bomb.out");
            std::this_thread::sleep_for(3s);
            ::kill(step.pid, SIGTERM);
            REQUIRE(step.wait(30s));
            // Nothing of it is left: no process runs in the workspace.
            auto left = [&] {
                int n = 0;
                for (const auto& e : fs::directory_iterator("/proc")) {
                    std::error_code ec;
                    if (fs::read_symlink(e.path() / "cwd", ec) == w.ws) ++n;
                }
                return n;
            };
            CHECK(wait_for([&] { return left() == 0; }, 10s));
            // The machine still runs a step.
            Result after = w.caged("echo alive", policy);
            CHECK(after.out.find("alive") != std::string::npos);
        }
    }
}

TEST_CASE("a memory bomb meets the step's memory limit, a program below it runs", "[fence][limits][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            // Small, so that the test is kind to the machine; the default is in the policy test.
            std::string policy = policy_with(w, "fence-memory", [](json& p) { p["cage"]["limits"]["memory_mb"] = 512; });
            Result bomb = w.caged("python3 -c 'a = []\nwhile True: a.append(bytearray(16 << 20))'", policy);
            INFO(bomb.out);
            CHECK(bomb.status != 0);
            Result ok = w.caged("python3 -c 'b = bytearray(100 << 20); print(\"alloc-ok\")'", policy);
            INFO(ok.out);
            CHECK(ok.out.find("alloc-ok") != std::string::npos);
        }
    }
}

TEST_CASE("the default limits let real toolchains run: node with WebAssembly, java, javac", "[fence][limits][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = w.policy();
            if (::access("/usr/bin/node", X_OK) == 0) {
                Result r = w.caged("node -e 'new WebAssembly.Memory({initial: 10}); console.log(\"node-ok\")'", policy);
                INFO(r.out);
                CHECK(r.out.find("node-ok") != std::string::npos);
            } else {
                WARN("node not installed: skipped");
            }
            if (::access("/usr/bin/javac", X_OK) == 0) {
                w.put("Hello.java", "class Hello { public static void main(String[] a) { System.out.println(\"java-ok\"); } }\n");
                w.own();
                Result r = w.caged("javac -J-XX:-UsePerfData Hello.java && java -XX:-UsePerfData -cp . Hello", policy);
                INFO(r.out);
                CHECK(r.out.find("java-ok") != std::string::npos);
            } else {
                WARN("javac not installed: skipped");
            }
        }
    }
}

TEST_CASE("a file beyond the step's file-size limit is cut short", "[fence][limits][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            std::string policy = policy_with(w, "fence-fsize", [](json& p) { p["cage"]["limits"]["fsize_mb"] = 4; });
            Result r = w.caged("head -c 8388608 /dev/zero > big; echo status=$?; head -c 1048576 /dev/zero > small && echo small-ok",
                               policy);
            INFO(r.out);
            CHECK(r.out.find("status=0") == std::string::npos);
            CHECK(r.out.find("small-ok") != std::string::npos);
            CHECK(fs::file_size(w.ws / "big") <= 4u << 20);
        }
    }
}

TEST_CASE("the shipped policies bound memory, file size and processes by default", "[fence][limits]") {
    for (const char* name : {"default.json"}) {
        std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/" + name);
        json p = json::parse(f, nullptr, true, true);
        const json& l = p["cage"]["limits"];
        CHECK(l["memory_mb"].get<long>() > 0);
        CHECK(l["fsize_mb"].get<long>() > 0);
        CHECK(l["nproc"].get<long>() > 0);
    }
}

TEST_CASE("doctor says whether steps get a PID namespace", "[fence][reads][doctor]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            Result r = run(as_user(who, {testsupport::reachable(TOOLCAGE_BIN), "doctor", "--policy", w.policy()}), w.env(), w.ws.string());
            INFO(r.out);
            if (namespaces_available(who)) {
                CHECK(r.out.find("processes: a PID namespace per step") != std::string::npos);
            } else {
                CHECK(r.out.find("processes: no PID namespace") != std::string::npos);
                CHECK(r.out.find("other processes' /proc entries are visible") != std::string::npos);
            }
        }
    }
}
