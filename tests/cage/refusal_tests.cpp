// After a caged step, the cage says what it refused and which policy field would allow it: a
// write outside the workspace, a read of a home file, a connect to a host off the relay's list.
// Real steps on the real kernel, as root and as nobody; and the pure readers, by tables.
#include <linux/audit.h>
#include <linux/netlink.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "cage/containment/landlock_uapi.h"
#include "cage/explain/landlock_audit.h"
#include "cage/explain/refusals.h"
#include "common/user_home.h"
#include "step_harness.h"
#include "tests/other_user.h"

using namespace steptest;
using namespace toolcage::cage;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> refusal_lines(const std::string& out) {
    std::vector<std::string> v;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with("toolcage run: refused")) v.push_back(line);
    return v;
}

// The harness lets steps read its scratch base; the files in it must stay closed here.
void close_scratch_base(Scratch& s) {
    auto& read = s.policy["cage"]["read"];
    for (std::size_t i = 0; i < read.size(); ++i)
        if (read[i] == s.base) read.erase(i--);
}

Result caged(Scratch& s, As who, const std::string& script) {
    return run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c", script},
                        {who, false, {}});
}

void put(const std::string& path, const std::string& text, mode_t mode) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
}

// Kernel auditing on for the length of a test, as root, and back off after: auditing is off on
// most machines (no auditd), and the kernel's records are what is under test.
class AuditOn {
  public:
    AuditOn() {
        if (::geteuid() != 0 || landlock_audit_availability().readable) return;
        if (set(1)) switched_ = true;
    }
    ~AuditOn() {
        if (switched_) set(0);
    }

  private:
    static bool set(unsigned enabled) {
        int s = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
        if (s < 0) return false;
        struct {
            nlmsghdr h;
            audit_status st;
        } m{};
        m.h.nlmsg_len = sizeof m;
        m.h.nlmsg_type = AUDIT_SET;
        m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        m.st.mask = AUDIT_STATUS_ENABLED;
        m.st.enabled = enabled;
        sockaddr_nl k{};
        k.nl_family = AF_NETLINK;
        bool ok = ::sendto(s, &m, sizeof m, 0, reinterpret_cast<sockaddr*>(&k), sizeof k) >= 0;
        alignas(nlmsghdr) char buf[1024];
        if (ok) ok = ::recv(s, buf, sizeof buf, 0) > 0;
        ::close(s);
        return ok;
    }
    bool switched_ = false;
};

}  // namespace

TEST_CASE("a caged write outside the workspace is explained: the path and cage.write",
          "[cage][refusal]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    std::string target = s.base + "/outside/made-by-step.txt";
    fs::create_directories(s.base + "/outside");
    ::chmod((s.base + "/outside").c_str(), 0777);
    Result r = caged(s, who, "echo x > " + target);
    INFO(r.out);
    CHECK(r.status != 0);
    CHECK_FALSE(fs::exists(target));
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("refused write " + target) != std::string::npos);
    CHECK(lines[0].find("cage.write") != std::string::npos);
    CHECK(lines[0].find("add \"" + s.base + "/outside\" to cage.write") != std::string::npos);
    // ... and in the decision log, with the step (toolcage's state directory, shared by the
    // user's steps: this workspace's last line).
    std::ifstream log(testsupport::state_dir_for(testsupport::case_uid(who == As::nobody)) + "/decisions.jsonl");
    std::string last, line;
    while (std::getline(log, line))
        if (line.find("\"workspace\":\"" + s.ws + "\"") != std::string::npos) last = line;
    REQUIRE_FALSE(last.empty());
    auto j = nlohmann::json::parse(last);
    REQUIRE(j["refusals"].size() == 1);
    CHECK(j["refusals"][0]["field"] == "cage.write");
    CHECK(j["refusals"][0]["target"] == target);
}

TEST_CASE("a caged write into a system directory is explained, and no rule is suggested",
          "[cage][refusal]") {
    Scratch s;
    Result r = caged(s, As::nobody, "touch /etc/toolcage-refusal-test");
    INFO(r.out);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("/etc/toolcage-refusal-test") != std::string::npos);
    CHECK(lines[0].find("cage.write") != std::string::npos);
    CHECK(lines[0].find("not suggested") != std::string::npos);
}

// The step's home is the user database's (never the caller's HOME): root's real home here, with
// files of the test's own that are removed afterwards (nobody's home does not exist).
struct HomeFile {
    std::string path;
    bool made_dir = false;
    HomeFile(const std::string& rel, const std::string& text) {
        path = toolcage::user_home() + "/" + rel;
        std::string dir = path.substr(0, path.rfind('/'));
        made_dir = !fs::exists(dir);
        fs::create_directories(dir);
        put(path, text, 0644);
    }
    ~HomeFile() {
        std::error_code ec;
        fs::remove(path, ec);
        if (made_dir) fs::remove(path.substr(0, path.rfind('/')), ec);
    }
};

TEST_CASE("a caged read of a home file is explained: the path and cage.read", "[cage][refusal]") {
    Scratch s;
    const std::string name = "toolcage-refusal-" + s.base.substr(s.base.rfind('/') + 1) + ".txt";
    HomeFile notes(name, "notes\n");
    Result r = caged(s, As::root, "cat \"$HOME/" + name + "\"");
    INFO(r.out);
    CHECK(r.out.find("notes\n") == std::string::npos);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("refused read " + notes.path) != std::string::npos);
    CHECK(lines[0].find("add \"{home}/" + name + "\" to cage.read") != std::string::npos);
}

TEST_CASE("a caged read of a credential is explained, and never suggested", "[cage][refusal]") {
    Scratch s;
    const std::string key = ".ssh/toolcage-refusal-" + s.base.substr(s.base.rfind('/') + 1);
    HomeFile id(key, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    std::unique_ptr<HomeFile> npmrc;
    if (!fs::exists(toolcage::user_home() + "/.npmrc"))
        npmrc = std::make_unique<HomeFile>(".npmrc", "//registry.npmjs.org/:_authToken=npm_secret\n");
    Result r = caged(s, As::root, "cat \"$HOME/" + key + "\"; cat \"$HOME/.npmrc\"; ls \"$HOME\"");
    INFO(r.out);
    CHECK(r.out.find("BEGIN OPENSSH") == std::string::npos);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 3);
    for (const auto& l : lines) {
        CHECK(l.find("cage.read") != std::string::npos);
        CHECK(l.find("not suggested") != std::string::npos);
        CHECK(l.find("add \"") == std::string::npos);
    }
}

TEST_CASE("a caged connect to a host off the relay's list is explained: the host and relay.allow",
          "[cage][refusal][relay]") {
    std::string network = GENERATE("netns", "landlock");
    As who = GENERATE(As::root, As::nobody);
    INFO(network << " as " << name_of(who));
    Scratch s;
    s.policy["cage"]["network"] = network;
    s.policy["relay"]["enabled"] = true;
    s.policy["relay"]["allow"] = {"registry.npmjs.org"};
    Result r = caged(s, who, "curl -sS --max-time 10 https://off-the-list.example.org/");
    INFO(r.out);
    CHECK(r.status != 0);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("a connection to off-the-list.example.org:443") != std::string::npos);
    CHECK(lines[0].find("add \"off-the-list.example.org\" to relay.allow") != std::string::npos);
}

TEST_CASE("at a terminal the refusal is explained too, after the step, and the step keeps a terminal",
          "[cage][refusal][tty]") {
    if (::access("/usr/bin/script", X_OK) != 0) {
        WARN("skipped: /usr/bin/script (util-linux) is not installed");
        return;
    }
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    close_scratch_base(s);
    put(s.state + "/.bashrc", "alias secret=1\n", 0644);
    // script(1) gives toolcage a terminal for stdin, stdout and stderr.
    std::string inner = (who == As::nobody ? testsupport::as_nobody_shell_prefix() : std::string()) +
                        "env -i " + testsupport::suite_state_word(who == As::nobody) + "PATH=/usr/bin:/bin HOME=" + s.state + " XDG_STATE_HOME=" + s.state +
                        " LANG=C.UTF-8 " + testsupport::reachable(TOOLCAGE_BIN) + " run --policy " + s.policy_file() +
                        " -- /bin/sh -c 'test -t 2 && echo stderr-is-a-terminal; cat " + s.state + "/.bashrc'";
    int status = 0;
    std::string out = run_shell("cd " + s.ws + " && script -qefc \"" + inner + "\" /dev/null", status);
    INFO(out);
    CHECK(out.find("alias secret") == std::string::npos);
    CHECK(out.find("stderr-is-a-terminal") != std::string::npos);
    std::size_t denied = out.find("Permission denied");
    std::size_t explained = out.find("toolcage run: refused read " + s.state + "/.bashrc");
    REQUIRE(explained != std::string::npos);
    CHECK(denied < explained);
    CHECK(out.find("toolcage run: refused read", explained + 1) == std::string::npos);
}

TEST_CASE("a step without network under a policy without one is told so, and which has one",
          "[cage][refusal][network]") {
    if (::access("/usr/bin/curl", X_OK) != 0) {
        WARN("skipped: curl is not installed (install.sh installs it)");
        return;
    }
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    s.policy["relay"]["enabled"] = false;
    Result r = caged(s, who, "curl -sS --max-time 10 https://example.com/");
    INFO(r.out);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("a connection to the network") != std::string::npos);
    CHECK(lines[0].find("\"network-test\" gives the step no network") != std::string::npos);
    CHECK(lines[0].find("forge") != std::string::npos);
}

TEST_CASE("a program in a directory left out of the step's PATH is named after the step", "[cage][refusal][path]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    // A version manager's shim directory first on PATH, outside what the cage may execute.
    std::string shims = s.state + "/.pyenv/shims";
    put(shims + "/python3", "#!/bin/sh\necho shim\n", 0755);
    Result r = run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c", "python3 -c 'print(1)'"},
                            {who, false, {"PATH=" + shims + ":/usr/bin:/bin"}});
    INFO(r.out);
    CHECK(r.out.starts_with("1\n"));  // the system's python3 ran, not the shim
    CHECK(r.out.find("note: the step's PATH leaves out") != std::string::npos);
    CHECK(r.out.find("python3 in " + shims) != std::string::npos);
    CHECK(r.out.find("cage.execute") != std::string::npos);
    // A step that names nothing from there hears nothing of it.
    Result quiet = run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/true"},
                                {who, false, {"PATH=" + shims + ":/usr/bin:/bin"}});
    CHECK(quiet.out.find("PATH leaves out") == std::string::npos);
}

TEST_CASE("a write in the read-only cage is explained with its path, and no cage.write is suggested",
          "[cage][refusal][read-only]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    Result r = run_toolcage(s, {"run", "--read-only", "--policy", s.policy_file(), "--", "touch", "newfile"},
                            {who, false, {}});
    INFO(r.out);
    CHECK(r.status != 0);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("refused write " + s.ws + "/newfile") != std::string::npos);
    CHECK(lines[0].find("read-only cage") != std::string::npos);
    CHECK(lines[0].find("cage.write") == std::string::npos);
}

TEST_CASE("a step with no refusal prints nothing extra", "[cage][refusal]") {
    As who = GENERATE(As::root, As::nobody);
    Scratch s;
    Result r = caged(s, who, "echo hi; echo there >&2; echo made > made.txt; cat made.txt");
    CHECK(r.status == 0);
    // stdout and stderr are one pipe here (an agent's 2>&1): the order is kept.
    CHECK(r.out == "hi\nthere\nmade\n");
    // A failure that is not the cage's: no explanation either.
    Result f = caged(s, who, "ls /no/such/dir");
    CHECK(f.status != 0);
    CHECK(refusal_lines(f.out).empty());
}

TEST_CASE("the step's stderr is passed on whole however much it writes, its refusals still explained",
          "[cage][refusal][stderr]") {
    As who = GENERATE(As::root, As::nobody);
    const bool read_only = GENERATE(false, true);
    Scratch s;
    // 3 MB, many times a pipe's buffer: the supervisor passes it on while it waits for the step
    // (a supervisor that stopped reading would leave the step blocked on a full pipe for ever).
    std::string script = "head -c 3000000 /dev/zero | tr '\\0' x >&2; echo end >&2; echo made > " + s.base +
                         "/outside.txt";
    std::vector<std::string> args = {"run", "--policy", s.policy_file()};
    if (read_only) args.emplace_back("--read-only");
    args.insert(args.end(), {"--", "/bin/sh", "-c", script});
    Result r = run_toolcage(s, args, {who, false, {}});
    INFO(name_of(who) << (read_only ? " read-only" : " caged"));
    CHECK(r.status != 0);
    CHECK(r.out.find(std::string(3000000, 'x') + "end\n") != std::string::npos);
    CHECK(r.out.find(std::string(3000001, 'x')) == std::string::npos);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find(s.base + "/outside.txt") != std::string::npos);
}

TEST_CASE("a reader of toolcage's stderr that went away ends neither toolcage nor the step's exit code",
          "[cage][stderr]") {
    As who = GENERATE(As::root, As::nobody);
    const bool read_only = GENERATE(false, true);
    Scratch s;
    std::vector<std::string> args = {"run", "--policy", s.policy_file()};
    if (read_only) args.emplace_back("--read-only");
    args.insert(args.end(), {"--", "/bin/sh", "-c", "echo to-stdout; echo to-stderr >&2; echo more >&2; exit 7"});
    Launch how{who, false, {}};
    how.stderr_reader_gone = true;
    Result r = run_toolcage(s, args, how);
    INFO(name_of(who) << (read_only ? " read-only" : " caged") << "\n" << r.out);
    CHECK(r.status == 7);  // not 128 + SIGPIPE
    CHECK(r.out == "to-stdout\n");
}

TEST_CASE("without signalfd the supervisor still passes the stderr on, forwards signals and ends with the step",
          "[cage][stderr]") {
    As who = GENERATE(As::root, As::nobody);
    Scratch s;
    Launch how{who, false, {}};
    how.no_signalfd = true;
    Result r = run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c",
                                "head -c 200000 /dev/zero | tr '\\0' y >&2; echo done >&2; exit 5"}, how);
    INFO(name_of(who) << "\n" << r.out.substr(r.out.size() > 2000 ? r.out.size() - 2000 : 0));
    CHECK(r.status == 5);
    CHECK(r.out.find(std::string(200000, 'y') + "done\n") != std::string::npos);
    // A SIGTERM to toolcage reaches the step (a shell that reports it and exits 9).
    Background bg(s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c",
                      "trap 'echo got-term >&2; exit 9' TERM; echo ready > " + s.ws + "/ready; "
                      "while :; do sleep 0.05; done"}, how);
    REQUIRE(wait_for_file(s.ws + "/ready", 10000));
    REQUIRE(::kill(bg.pid(), SIGTERM) == 0);
    Result t = bg.wait();
    INFO(t.out);
    CHECK(t.status == 9);
    CHECK(t.out.find("got-term") != std::string::npos);
}

TEST_CASE("Landlock's own audit records name the refused path, when the kernel's audit can be read",
          "[cage][refusal][audit]") {
    AuditOn on;
    AuditAvailability a = landlock_audit_availability();
    if (!a.readable) {
        WARN("skipped: Landlock's audit records cannot be read here: " << a.why);
        return;
    }
    Scratch s;
    // A read (a write outside the grants meets the step's read-only mounts before Landlock), of
    // a file beside the scratch tree, which the test policy reads whole.
    const std::string outside = "/var/tmp/toolcage-audit-" + std::to_string(::getpid());
    std::string target = outside + "/audited.txt";
    fs::create_directories(outside);
    std::ofstream(target) << "x\n";
    // The step lives on a moment after its refusal: under a step init of its own, its pid is
    // read from the init's children once it has started.
    Result r = caged(s, As::root, "cat " + target + " 2>/dev/null; sleep 0.3; true");
    INFO(r.out);
    auto lines = refusal_lines(r.out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("Landlock (kernel audit record)") != std::string::npos);
    CHECK(lines[0].find(outside) != std::string::npos);
    CHECK(lines[0].find("cage.read") != std::string::npos);
    fs::remove_all(outside);
}

// ---- the pure readers

TEST_CASE("a refused path in a program's error line is found, with the access it was refused",
          "[cage][refusal][unit]") {
    StepPaths paths{"/w/sub", "/w", "/t/step", "/home/u"};
    LandlockPlan plan;
    namespace ll = toolcage::landlock;
    plan.rules = {{"/usr", ll::kFsReadFile | ll::kFsReadDir | ll::kFsExecute, true},
                  {"/w", ll::fs_rights_for_abi(5), true},
                  {"/etc/passwd", ll::kFsReadFile, false}};
    struct Case {
        std::string line, access, target, field;
    };
    std::vector<Case> cases = {
        {"/bin/sh: 1: cannot create /opt/x/out.txt: Permission denied", "write", "/opt/x/out.txt",
         "cage.write"},
        {"touch: cannot touch '/srv/data/f': Permission denied", "write", "/srv/data/f",
         "cage.write"},
        {"mkdir: cannot create directory \xe2\x80\x98/data/new\xe2\x80\x99: Permission denied",
         "write", "/data/new", "cage.write"},
        {"cat: /home/u/notes.txt: Permission denied", "read", "/home/u/notes.txt", "cage.read"},
        {"PermissionError: [Errno 13] Permission denied: '/home/u/.cache/pip/x'", "write",
         "/home/u/.cache/pip/x", "cage.write"},
        {"Error: EACCES: permission denied, open '/home/u/.npm/_logs/x.log'", "write",
         "/home/u/.npm/_logs/x.log", "cage.write"},
        {"ls: cannot open directory '/home/u': Permission denied", "read", "/home/u", "cage.read"},
        {"python3: can't open file '/home/u/tool.py': [Errno 13] Permission denied", "read",
         "/home/u/tool.py", "cage.read"},
        {"bash: ../../home/u/x: Permission denied", "write", "/home/u/x", "cage.write"},
    };
    for (const auto& c : cases) {
        INFO(c.line);
        auto v = stderr_refusals({c.line}, plan, paths, false);
        REQUIRE(v.size() == 1);
        CHECK(v[0].access == c.access);
        CHECK(v[0].target == c.target);
        CHECK(v[0].field == c.field);
    }
    // What the cage grants is not its refusal (the file's own mode refused it), and lines that
    // report nothing refused give nothing.
    CHECK(stderr_refusals({"cat: /etc/passwd: Permission denied"}, plan, paths, false).empty());
    CHECK(stderr_refusals({"rm: cannot remove '/w/a': Permission denied"}, plan, paths, false)
              .empty());
    CHECK(stderr_refusals({"ls: cannot access '/nope': No such file or directory"}, plan, paths,
                          false)
              .empty());
    // A refusal with no path still says how to see more, and claims no file.
    auto vague = stderr_refusals({"npm ERR! Error: EACCES: permission denied"}, plan, paths, false);
    REQUIRE(vague.size() == 1);
    CHECK(vague[0].fix.find("toolcage doctor") != std::string::npos);
    CHECK(is_unplaced(vague[0]));
    CHECK(refusal_line(vague[0]).find("a file") == std::string::npos);
}

TEST_CASE("a refused path a program names apart from its refusal, or calls missing, is found",
          "[cage][refusal][unit]") {
    StepPaths paths{"/w/sub", "/w", "/t/step", "/home/u"};
    LandlockPlan plan;
    namespace ll = toolcage::landlock;
    plan.rules = {{"/usr", ll::kFsReadFile | ll::kFsReadDir | ll::kFsExecute, true}};
    // npm: the path on a line of its own.
    for (std::string npm : {"npm error ", "npm ERR! "}) {
        auto v = stderr_refusals({npm + "code EACCES", npm + "syscall mkdir", npm + "path /home/u/.npm/_cacache",
                                  npm + "errno EACCES", npm + "Your cache folder contains root-owned files"},
                                 plan, paths, false);
        REQUIRE(v.size() == 1);
        CHECK(v[0].access == "write");
        CHECK(v[0].target == "/home/u/.npm/_cacache");
    }
    // A relative name after "cannot touch" / "cannot create": in the working directory.
    for (std::string line : {"touch: cannot touch 'newfile': Permission denied",
                             "touch: cannot touch \xe2\x80\x98newfile\xe2\x80\x99: Permission denied",
                             "sh: 1: cannot create newfile: Permission denied"}) {
        INFO(line);
        auto v = stderr_refusals({line}, plan, paths, false);
        REQUIRE(v.size() == 1);
        CHECK(v[0].access == "write");
        CHECK(v[0].target == "/w/sub/newfile");
    }
    // "python3: can't open file" keeps its apostrophe out of the path.
    auto cant = stderr_refusals({"python3: can't open file 'x.py': [Errno 13] Permission denied"}, plan, paths, false);
    REQUIRE(cant.size() == 1);
    CHECK(is_unplaced(cant[0]));
    // A path that is there but not granted, reported missing: the cage hid it. One that is not
    // there is just missing.
    char tmpl[] = "/tmp/toolcage-outside-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string there = tmpl;
    auto git = stderr_refusals({"fatal: repository '" + there + "' does not exist"}, plan, paths, false);
    REQUIRE(git.size() == 1);
    CHECK(git[0].access == "read");
    CHECK(git[0].target == there);
    CHECK(git[0].reason.find("does not exist") != std::string::npos);
    CHECK(git[0].fix.find("cage.read") != std::string::npos);
    CHECK(stderr_refusals({"cat: " + there + ": No such file or directory"}, plan, paths, false).size() == 1);
    CHECK(stderr_refusals({"fatal: repository '" + there + "/gone' does not exist"}, plan, paths, false).empty());
    ::rmdir(tmpl);
}

TEST_CASE("no name resolved and no route out are explained: no network, or not through the relay",
          "[cage][refusal][unit]") {
    for (std::string line : {"curl: (6) Could not resolve host: example.com",
                             "npm error code EAI_AGAIN", "npm ERR! request to https://registry.npmjs.org/x failed, "
                                                         "reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
                             "ssh: Could not resolve hostname github.com: Temporary failure in name resolution",
                             "connect: Network is unreachable"}) {
        INFO(line);
        auto off = network_refusals({"something else", line}, false, "default");
        REQUIRE(off.size() == 1);
        CHECK(off[0].field == "relay.enabled");
        CHECK(off[0].fix.find("\"default\" gives the step no network") != std::string::npos);
        CHECK(off[0].fix.find("--policy forge") != std::string::npos);
        auto on = network_refusals({line}, true, "forge");
        REQUIRE(on.size() == 1);
        CHECK(on[0].field == "relay.allow");
        CHECK(on[0].fix.find("through the relay") != std::string::npos);
    }
    CHECK(network_refusals({"cat: x: Permission denied", "all good"}, false, "default").empty());
}

TEST_CASE("no refusal suggests opening the home directory, credentials or start-up files",
          "[cage][refusal][unit]") {
    StepPaths paths{"/w", "/w", "/t/step", "/home/u"};
    for (std::string p :
         {"/home/u", "/home/u/.ssh/id_rsa", "/home/u/.ssh", "/home/u/.npmrc", "/home/u/.gitconfig",
          "/home/u/.aws/credentials", "/home/u/.config/gh/hosts.yml", "/home/u/.bashrc",
          "/home/u/project/.env", "/home/u/.docker/config.json", "/home/u/.local/state/toolcage/x",
          "/root/.ssh/id_ed25519", "/etc/shadow", "/home/u/.gitconfig-private", "/home/u/.config/pip/pip.conf",
          "/home/u/.pip/pip.conf", "/home/u/.cargo/config.toml", "/home/u/.config/containers/auth.json"}) {
        INFO(p);
        CHECK(never_suggested(p, paths.home));
        for (const char* access : {"read", "write"}) {
            auto r = path_refusal(access, p, "test", "", paths);
            CHECK(r.fix.starts_with("not suggested"));
        }
    }
    // A new file directly in the home: its directory is the home itself.
    CHECK(path_refusal("write", "/home/u/new-file-here", "test", "", paths)
              .fix.starts_with("not suggested"));
    // An ordinary cache directory under home may be suggested, with the placeholder.
    auto ok = path_refusal("read", "/home/u/.cache/pip", "test", "", paths);
    CHECK(ok.fix == "to allow it, add \"{home}/.cache/pip\" to cage.read");
}

TEST_CASE("the relay's refusals of one step are read from its log", "[cage][refusal][unit]") {
    char tmpl[] = "/tmp/refusal-log-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string log = std::string(tmpl) + "/relay.jsonl";
    {
        std::ofstream out(log);
        out << R"({"event":"connect","host":"old.example.org","port":443,"verdict":"deny","status":403,"reason":"the host old.example.org:443 is not on the allowlist","step":"aaaa"})"
            << '\n';
    }
    auto from = fs::file_size(log);
    {
        std::ofstream out(log, std::ios::app);
        out << R"({"event":"connect","host":"pypi.org","port":443,"verdict":"deny","status":403,"reason":"the host pypi.org:443 is not on the allowlist","step":"bbbb"})"
            << '\n'
            << R"({"event":"connect","host":"other.example.org","port":443,"verdict":"deny","status":403,"reason":"the host other.example.org:443 is not on the allowlist","step":"cccc"})"
            << '\n'
            << R"({"event":"connect","host":"registry.npmjs.org","port":443,"verdict":"allow","status":200,"reason":"","step":"bbbb"})"
            << '\n'
            << R"({"event":"connect","host":"git.example.org","port":8443,"verdict":"deny","status":403,"reason":"the host git.example.org:8443 is not on the allowlist","step":"bbbb"})"
            << '\n'
            << R"({"event":"connect","host":"api.anthropic.com","port":443,"verdict":"deny","status":403,"reason":"the host api.anthropic.com:443 is not on the allowlist","step":"bbbb"})"
            << '\n'
            << "{torn" << '\n';
    }
    auto v = relay_refusals(log, from, "bbbb");
    REQUIRE(v.size() == 3);
    CHECK(v[0].target == "pypi.org:443");
    CHECK(v[0].fix == "to allow it, add \"pypi.org\" to relay.allow");
    CHECK(v[1].fix == "to allow it, add \"git.example.org:8443\" to relay.allow");
    CHECK(v[2].fix.starts_with("not suggested"));
    CHECK(relay_refusals(log, 0, "aaaa").size() == 1);
    fs::remove_all(tmpl);
}

TEST_CASE("plain HTTP through the relay and a host that does not resolve are explained as what they are",
          "[cage][refusal][unit]") {
    char tmpl[] = "/tmp/refusal-log-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string log = std::string(tmpl) + "/relay.jsonl";
    {
        std::ofstream out(log);
        out << R"({"event":"connect","host":"","port":0,"verdict":"deny","status":405,"reason":"method GET is not allowed: this relay only tunnels CONNECT host:port","step":"dddd"})"
            << '\n'
            << R"({"event":"connect","host":"pypi.example.org","port":443,"verdict":"deny","status":502,"reason":"cannot resolve pypi.example.org: Name or service not known","step":"dddd"})"
            << '\n';
    }
    auto v = relay_refusals(log, 0, "dddd");
    fs::remove_all(tmpl);
    REQUIRE(v.size() == 2);
    CHECK(v[0].target == "a plain http:// address");
    CHECK(v[0].field.empty());
    CHECK(v[0].fix == "the relay carries only HTTPS (CONNECT host:443); use the https:// address");
    CHECK(refusal_line(v[0]).find("refused a connection to a plain http:// address") != std::string::npos);
    CHECK(v[1].target == "pypi.example.org:443");
    CHECK(v[1].field.empty());
    CHECK(v[1].fix.starts_with("not a refusal: the relay dialled it, but the name does not resolve"));
}

TEST_CASE("a handshake the relay refused is explained: fronting is never suggested, no SNI names its field",
          "[cage][refusal][unit]") {
    char tmpl[] = "/tmp/refusal-log-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string log = std::string(tmpl) + "/relay.jsonl";
    {
        std::ofstream out(log);
        out << R"j({"event":"connect","host":"github.com","port":443,"verdict":"deny","status":200,"server_name":"evil.example.net","reason":"the ClientHello names evil.example.net, not the CONNECT host github.com: a handshake must name the host it was allowed for (domain fronting is refused)","step":"eeee"})j"
            << '\n'
            << R"j({"event":"connect","host":"pypi.org","port":443,"verdict":"deny","status":200,"reason":"the ClientHello for pypi.org:443 names no server (no SNI), so the relay cannot tell which host it is for; refused (relay.require_sni: false allows it)","step":"eeee"})j"
            << '\n';
    }
    auto v = relay_refusals(log, 0, "eeee");
    fs::remove_all(tmpl);
    REQUIRE(v.size() == 2);
    CHECK(v[0].target == "github.com:443");
    CHECK(v[0].field.empty());
    CHECK(v[0].fix.starts_with("not suggested"));
    CHECK(v[0].reason.find("evil.example.net") != std::string::npos);
    CHECK(v[1].field == "relay.require_sni");
    CHECK(v[1].fix.find("relay.require_sni to false") != std::string::npos);
}

TEST_CASE("Landlock audit records of the step's domain are read as refusals",
          "[cage][refusal][unit]") {
    StepPaths paths{"/w", "/w", "/t/step", "/home/u"};
    std::vector<std::pair<int, std::string>> msgs = {
        {1423,
         "audit(1796064278.665:3): domain=16cb062eb blockers=fs.make_reg path=\"/srv\" dev=\"vda\" "
         "ino=19"},
        {1424,
         "audit(1796064278.665:3): domain=16cb062eb status=allocated mode=enforcing pid=4242 uid=0 "
         "exe=\"/bin/sh\" comm=\"sh\""},
        {1423,
         "audit(1796064278.700:4): domain=aaaaaaaaa blockers=fs.read_file path=\"/etc/x\" "
         "dev=\"vda\" ino=20"},
        {1424,
         "audit(1796064278.700:4): domain=aaaaaaaaa status=allocated mode=enforcing pid=99 uid=0"},
        {1423,
         "audit(1796064278.800:5): domain=16cb062eb blockers=net.connect_tcp daddr=93.184.216.34 "
         "dest=443"},
        {1423,
         "audit(1796064278.900:6): domain=16cb062eb blockers=fs.read_file,fs.read_dir "
         "path=2F686F6D652F752F6D7920646F6373 dev=\"vda\" ino=21"},
    };
    auto recs = select_step_records(msgs, {4242});
    REQUIRE(recs.size() == 3);
    std::vector<CageRefusal> v;
    for (const auto& r : recs)
        for (auto& x : audit_record_refusals(r, paths)) v.push_back(x);
    REQUIRE(v.size() == 3);
    CHECK(v[0].access == "write");
    CHECK(v[0].target == "/srv");
    CHECK(v[0].field == "cage.write");
    CHECK(v[1].access == "connect");
    CHECK(v[1].target == "93.184.216.34:443");
    CHECK(v[1].field == "relay.allow");
    CHECK(v[2].access == "read");
    CHECK(v[2].target == "/home/u/my docs");  // the kernel writes odd names in hex
    CHECK(v[2].fix == "to allow it, add \"{home}/my docs\" to cage.read");
}
