// Real escape attempts from inside the cage, on the real kernel, as root and as nobody (65534).
// Each test asserts the refusal and, beside it, that the same operation works where the policy
// (or the absence of a cage) allows it: a refusal for a broken probe proves nothing.
// TOOLCAGE_ESCAPE_NETWORK (landlock, netns or auto; default landlock) sets cage.network for the
// whole suite; CTest runs it in both modes. The tests of the network itself name their mode.
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/other_user.h"

namespace fs = std::filesystem;

namespace {

enum class As { root, nobody };
const char* name_of(As who) {
    return who == As::root ? "root" : "nobody";
}

struct Result {
    int status = -1;  // exit code, or 128+signal
    std::string out;
};

// Runs argv with stdout+stderr captured; `stdin_fd` replaces stdin when >= 0.
Result run(const std::vector<std::string>& argv, const std::vector<std::string>& env_extra = {},
           int stdin_fd = -1) {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        if (stdin_fd >= 0)
            ::dup2(stdin_fd, 0);
        else {
            int null = ::open("/dev/null", O_RDONLY);
            ::dup2(null, 0);
        }
        for (const auto& e : env_extra) ::putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::fprintf(stderr, "execv %s: %s\n", args[0], std::strerror(errno));
        _exit(99);
    }
    ::close(p[1]);
    Result r;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<std::size_t>(n));
    ::close(p[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

// cage.network for the suite, from TOOLCAGE_ESCAPE_NETWORK.
std::string suite_network() {
    const char* v = std::getenv("TOOLCAGE_ESCAPE_NETWORK");
    return v && *v ? v : "landlock";
}

// An IPv4 address of this machine other than loopback, or "" when it has none.
std::string host_ipv4() {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return "";
    std::string out;
    for (ifaddrs* i = list; i && out.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        auto* in = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
        if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN];
        if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) out = text;
    }
    ::freeifaddrs(list);
    return out;
}

std::vector<std::string> as_user(As who, std::vector<std::string> argv) {
    if (who == As::root) return argv;
    std::vector<std::string> out = testsupport::as_nobody_prefix();
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

// A scratch tree every user can reach: base/ws (the workspace), base/out (not in the policy),
// base/home (HOME, with a key in .ssh), base/policy.json.
struct Fixture {
    fs::path base, ws, out, home;
    std::string probe;
    nlohmann::json policy;

    Fixture() {
        char tmpl[] = "/tmp/toolcage-escape-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        base = tmpl;
        ::chmod(tmpl, 0755);
        ws = base / "ws";
        out = base / "out";
        home = base / "home";
        for (const auto& d : {ws, out, home, home / ".ssh", home / ".aws"}) {
            fs::create_directories(d);
            ::chmod(d.c_str(), 0777);
        }
        put(home / ".ssh/id_ed25519", "PRIVATE KEY\n");
        put(home / ".aws/credentials", "aws_secret_access_key = abc\n");
        put(out / "file", "outside\n");
        put(ws / "file", "inside\n");
        std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/default.json");
        policy = nlohmann::json::parse(f, nullptr, true, true);
        policy["name"] = "escape-test";
        policy["cage"]["network"] = suite_network();
        // The probe is run from a directory the policy lets the cage read and execute.
        fs::path bin = base / "bin";
        fs::create_directories(bin);
        fs::copy_file(ESCAPE_PROBE, bin / "probe");
        ::chmod((bin / "probe").c_str(), 0755);
        probe = (bin / "probe").string();
        policy["cage"]["read"].push_back(bin.string());
        policy["cage"]["execute"].push_back(bin.string());
    }
    ~Fixture() {
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    static void put(const fs::path& p, const std::string& text, mode_t mode = 0666) {
        std::ofstream(p) << text;
        ::chmod(p.c_str(), mode);
    }
    std::string policy_file() {
        fs::path p = base / "policy.json";
        std::ofstream(p) << policy.dump(2);
        ::chmod(p.c_str(), 0644);
        return p.string();
    }
    // The probe inside the cage, started from the workspace.
    Result caged(As who, std::vector<std::string> probe_args, std::vector<std::string> opts = {},
                 int stdin_fd = -1) {
        std::vector<std::string> argv = {testsupport::reachable(CAGE_RUNNER), "--policy", policy_file(), "--workdir",
                                         ws.string()};
        argv.insert(argv.end(), opts.begin(), opts.end());
        argv.push_back("--");
        argv.push_back(probe);
        argv.insert(argv.end(), probe_args.begin(), probe_args.end());
        return run(as_user(who, argv), {"HOME=" + home.string()}, stdin_fd);
    }
    Result uncaged(As who, std::vector<std::string> probe_args, int stdin_fd = -1) {
        std::vector<std::string> argv = {probe};
        argv.insert(argv.end(), probe_args.begin(), probe_args.end());
        return run(as_user(who, argv), {}, stdin_fd);
    }
};

// A loopback TCP listener on an ephemeral port (`any`: on every address of the host).
struct Listener {
    int fd = -1;
    int port = 0;
    explicit Listener(int type = SOCK_STREAM, bool any = false) {
        fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        if (type == SOCK_STREAM) REQUIRE(::listen(fd, 16) == 0);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    ~Listener() { ::close(fd); }
};

struct UnixListener {
    int fd = -1;
    UnixListener(const std::string& name, bool abstract, int type = SOCK_STREAM) {
        fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::size_t off = abstract ? 1 : 0;
        std::memcpy(a.sun_path + off, name.data(), name.size());
        socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + off + name.size() +
                                               (abstract ? 0 : 1));
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0);
        if (!abstract) ::chmod(name.c_str(), 0777);
        if (type == SOCK_STREAM) REQUIRE(::listen(fd, 16) == 0);
    }
    ~UnixListener() { ::close(fd); }
};

// Exit 1 from the probe: the operation was refused; 0: it succeeded.
#define REFUSED(expr)                    \
    do {                                 \
        const Result res_ = (expr);      \
        INFO(#expr << "\n" << res_.out); \
        CHECK(res_.status == 1);         \
    } while (0)
#define SUCCEEDS(expr)                   \
    do {                                 \
        const Result res_ = (expr);      \
        INFO(#expr << "\n" << res_.out); \
        CHECK(res_.status == 0);         \
    } while (0)

}  // namespace

TEST_CASE("the cage refuses writes outside the write list, by every path", "[escape][fs]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    const std::string outside = (fx.out / "file").string();

    // Directly.
    REFUSED(fx.caged(who, {"write", outside}));
    SUCCEEDS(fx.caged(who, {"write", (fx.ws / "new").string()}));
    SUCCEEDS(fx.uncaged(who, {"write", outside}));

    // Through a symlink planted in the workspace.
    fs::create_symlink(outside, fx.ws / "link");
    REFUSED(fx.caged(who, {"write", (fx.ws / "link").string()}));
    fs::create_symlink(fx.ws / "file", fx.ws / "inner-link");
    SUCCEEDS(fx.caged(who, {"write", (fx.ws / "inner-link").string()}));

    // A hard link of an outside file into the workspace.
    REFUSED(fx.caged(who, {"link", outside, (fx.ws / "hard").string()}));
    SUCCEEDS(fx.caged(who, {"link", (fx.ws / "file").string(), (fx.ws / "hard2").string()}));

    // Renaming an ancestor of the workspace, or the workspace itself, away.
    REFUSED(fx.caged(who, {"rename", fx.ws.string(), (fx.base / "moved").string()}));
    REFUSED(fx.caged(who, {"rename", fx.base.string(), fx.base.string() + "-moved"}));
    fs::create_directories(fx.ws / "a");
    ::chmod((fx.ws / "a").c_str(), 0777);
    SUCCEEDS(fx.caged(who, {"rename", (fx.ws / "a").string(), (fx.ws / "b").string()}));
    CHECK(fs::exists(fx.ws));
    std::ifstream f(outside);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK((text == "outside\n" || text == "escaped\n"));  // the uncaged write above wrote it
}

TEST_CASE("the cage cannot read ~/.ssh or other secrets outside the read list", "[escape][fs]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    REFUSED(fx.caged(who, {"read", (fx.home / ".ssh/id_ed25519").string()}));
    REFUSED(fx.caged(who, {"read", (fx.home / ".aws/credentials").string()}));
    REFUSED(fx.caged(who, {"read", (fx.out / "file").string()}));
    SUCCEEDS(fx.caged(who, {"read", (fx.ws / "file").string()}));
    SUCCEEDS(fx.uncaged(who, {"read", (fx.home / ".ssh/id_ed25519").string()}));
}

TEST_CASE("the cage cannot read its supervisor's environment through /proc", "[escape][proc]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    REFUSED(fx.caged(who, {"environ-parent"}));
    SUCCEEDS(fx.caged(who, {"environ-self"}));
    if (who == As::root && testsupport::can_switch_user()) SUCCEEDS(fx.uncaged(who, {"environ-parent"}));
}

TEST_CASE("the cage executes only from execute paths", "[escape][exec]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fs::path noexec = fx.base / "noexec";
    fs::create_directories(noexec);
    ::chmod(noexec.c_str(), 0755);
    fs::copy_file("/usr/bin/true", noexec / "true");
    fs::copy_file("/usr/bin/true", fx.ws / "true");
    ::chmod((noexec / "true").c_str(), 0755);
    ::chmod((fx.ws / "true").c_str(), 0755);
    fx.policy["cage"]["read"].push_back(noexec.string());
    REFUSED(fx.caged(who, {"exec", (noexec / "true").string()}));
    SUCCEEDS(fx.caged(who, {"exec", (fx.ws / "true").string()}));
    SUCCEEDS(fx.uncaged(who, {"exec", (noexec / "true").string()}));
    // Fileless exec: a memfd, or execveat of an O_PATH descriptor.
    REFUSED(fx.caged(who, {"memfd-exec"}));
    REFUSED(fx.caged(who, {"execveat", (noexec / "true").string()}));
    SUCCEEDS(fx.uncaged(who, {"memfd-exec"}));
    SUCCEEDS(fx.uncaged(who, {"execveat", (noexec / "true").string()}));
}

TEST_CASE("TCP: connect only to the relay's port, never bind; closed without a relay",
          "[escape][net]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["network"] = "landlock";
    Listener relay, other;
    fx.policy["relay"]["enabled"] = true;
    std::vector<std::string> with_relay = {"--relay-port", std::to_string(relay.port)};
    REFUSED(fx.caged(who, {"connect", std::to_string(other.port)}, with_relay));
    SUCCEEDS(fx.caged(who, {"connect", std::to_string(relay.port)}, with_relay));
    REFUSED(fx.caged(who, {"bind"}, with_relay));
    SUCCEEDS(fx.uncaged(who, {"connect", std::to_string(other.port)}));
    SUCCEEDS(fx.uncaged(who, {"bind"}));

    fx.policy["relay"]["enabled"] = false;
    REFUSED(fx.caged(who, {"connect", std::to_string(relay.port)}));
}

TEST_CASE("the cage refuses a relay-enabled policy when no relay is available", "[escape][net]") {
    Fixture fx;
    fx.policy["relay"]["enabled"] = true;
    Result r = fx.caged(As::root, {"connect", "1"});
    CHECK(r.status == 2);
    CHECK(r.out.find("relay not available") != std::string::npos);
}

TEST_CASE("no UDP, raw or packet sockets", "[escape][net]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["network"] = "landlock";
    Listener udp(SOCK_DGRAM);
    REFUSED(fx.caged(who, {"udp", std::to_string(udp.port)}));
    SUCCEEDS(fx.uncaged(who, {"udp", std::to_string(udp.port)}));
    REFUSED(fx.caged(who, {"raw"}));
    REFUSED(fx.caged(who, {"packet"}));
    if (who == As::root && testsupport::can_switch_user()) {
        SUCCEEDS(fx.uncaged(who, {"raw"}));
        SUCCEEDS(fx.uncaged(who, {"packet"}));
    }
}

// The relay's stand-in (cage_runner --relay-port) holds the socket the step makes on
// 127.0.0.1:3128 inside its namespace: a connect there is queued, as at a listening relay.
TEST_CASE("private network: its own loopback, the relay's socket inside, nothing of the host's",
          "[escape][net][netns]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["network"] = "netns";
    fx.policy["relay"]["enabled"] = true;
    Listener relay, other, everywhere(SOCK_STREAM, true);
    std::vector<std::string> with_relay = {"--relay-port", std::to_string(relay.port)};
    SUCCEEDS(fx.caged(who, {"connect", "3128"}, with_relay));
    // The host's loopback listeners, the relay's host-side port among them: not there.
    REFUSED(fx.caged(who, {"connect", std::to_string(relay.port)}, with_relay));
    REFUSED(fx.caged(who, {"connect", std::to_string(other.port)}, with_relay));
    SUCCEEDS(fx.uncaged(who, {"connect", std::to_string(other.port)}));
    // A test suite's server on a port of its choosing.
    SUCCEEDS(fx.caged(who, {"serve-self"}, with_relay));
    // The host's other addresses: no route.
    std::string ip = host_ipv4();
    if (!ip.empty()) {
        REFUSED(fx.caged(who, {"connect-addr", ip, std::to_string(everywhere.port)}, with_relay));
        SUCCEEDS(fx.uncaged(who, {"connect-addr", ip, std::to_string(everywhere.port)}));
    } else {
        WARN("no IPv4 address besides loopback: the route test is skipped");
    }
    // Without a relay: no socket on 3128 either.
    fx.policy["relay"]["enabled"] = false;
    REFUSED(fx.caged(who, {"connect", "3128"}));
    SUCCEEDS(fx.caged(who, {"serve-self"}));
}

TEST_CASE("the Landlock port rule refuses what the private network allows: a server of one's own",
          "[escape][net]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["network"] = "landlock";
    REFUSED(fx.caged(who, {"serve-self"}));
}

TEST_CASE("private network: UDP stays inside; no raw or packet sockets", "[escape][net][netns]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["network"] = "netns";
    Listener udp(SOCK_DGRAM, true);
    char buf[8];
    // Sent inside the namespace: nothing arrives at the host's socket.
    SUCCEEDS(fx.caged(who, {"udp", std::to_string(udp.port)}));
    CHECK(::recv(udp.fd, buf, sizeof buf, MSG_DONTWAIT) < 0);
    std::string ip = host_ipv4();
    if (!ip.empty()) REFUSED(fx.caged(who, {"udp-addr", ip, std::to_string(udp.port)}));
    SUCCEEDS(fx.uncaged(who, {"udp", std::to_string(udp.port)}));
    CHECK(::recv(udp.fd, buf, sizeof buf, MSG_DONTWAIT) == 1);
    REFUSED(fx.caged(who, {"raw"}));
    REFUSED(fx.caged(who, {"packet"}));
}

TEST_CASE("no unix sockets to the outside: pathname, abstract, datagram socketpair",
          "[escape][unix]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    std::string path = (fx.out / "daemon.sock").string();
    std::string dpath = (fx.out / "daemon.dgram").string();
    std::string abstract = "toolcage-escape-" + std::to_string(::getpid());
    UnixListener stream(path, false), dgram(dpath, false, SOCK_DGRAM), abs(abstract, true);
    REFUSED(fx.caged(who, {"unix", path}));
    REFUSED(fx.caged(who, {"abstract", abstract}));
    REFUSED(fx.caged(who, {"dgram-pair", dpath}));
    SUCCEEDS(fx.caged(who, {"stream-pair"}));
    SUCCEEDS(fx.uncaged(who, {"unix", path}));
    SUCCEEDS(fx.uncaged(who, {"abstract", abstract}));
    SUCCEEDS(fx.uncaged(who, {"dgram-pair", dpath}));
}

TEST_CASE("no io_uring, ptrace, process_vm_writev or signals outside the cage",
          "[escape][process]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    REFUSED(fx.caged(who, {"io_uring"}));
    SUCCEEDS(fx.uncaged(who, {"io_uring"}));
    REFUSED(fx.caged(who, {"ptrace-parent"}));
    REFUSED(fx.caged(who, {"vm_writev-parent"}));
    REFUSED(fx.caged(who, {"ptrace-child"}));
    SUCCEEDS(fx.uncaged(who, {"ptrace-child"}));
    SUCCEEDS(fx.uncaged(who, {"vm_writev-child"}));

    // A process of the same user outside the cage, ready once it has said so (its ids changed).
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t outside = ::fork();
    if (outside == 0) {
        ::close(ready[0]);
        if (!testsupport::become_case_user(who == As::nobody)) _exit(3);
        if (::write(ready[1], "r", 1) != 1) _exit(4);
        ::close(ready[1]);
        for (;;) ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    ::close(ready[0]);
    REFUSED(fx.caged(who, {"kill", std::to_string(outside)}));
    SUCCEEDS(fx.caged(who, {"kill-child"}));
    SUCCEEDS(fx.uncaged(who, {"kill", std::to_string(outside)}));
    ::kill(outside, SIGKILL);
    ::waitpid(outside, nullptr, 0);
}

TEST_CASE("no TIOCSTI on an inherited terminal", "[escape][tty]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(master >= 0);
    REQUIRE(::grantpt(master) == 0);
    REQUIRE(::unlockpt(master) == 0);
    int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(slave >= 0);
    REFUSED(fx.caged(who, {"tiocsti"}, {}, slave));
    if (who == As::root && testsupport::can_switch_user()) SUCCEEDS(fx.uncaged(who, {"tiocsti"}, slave));
    ::close(slave);
    ::close(master);
}

TEST_CASE("no mounts, namespaces or user namespaces", "[escape][ns]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    std::string dir = fx.ws.string();
    REFUSED(fx.caged(who, {"mount", dir}));
    REFUSED(fx.caged(who, {"mount-direct", dir}));
    REFUSED(fx.caged(who, {"userns"}));
    REFUSED(fx.caged(who, {"clone-userns"}));
    REFUSED(fx.caged(who, {"unshare-net"}));
    SUCCEEDS(fx.uncaged(who, {"mount", dir}));
    SUCCEEDS(fx.uncaged(who, {"userns"}));
    SUCCEEDS(fx.uncaged(who, {"clone-userns"}));
    if (who == As::root && testsupport::can_switch_user()) SUCCEEDS(fx.uncaged(who, {"unshare-net"}));
}

TEST_CASE("no bpf", "[escape][kernel]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    REFUSED(fx.caged(who, {"bpf"}));
    if (who == As::root && testsupport::can_switch_user()) SUCCEEDS(fx.uncaged(who, {"bpf"}));
}

TEST_CASE("an x32 system call kills the step", "[escape][arch]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    Result in = fx.caged(who, {"x32"});
    INFO(in.out);
    CHECK(in.status == 128 + SIGSYS);
    Result out = fx.uncaged(who, {"x32"});
    CHECK(out.status != 128 + SIGSYS);
}

TEST_CASE("a setuid binary gains nothing in the cage; root in the cage holds no capability",
          "[escape][privilege]") {
    if (!testsupport::can_switch_user()) {
        WARN("skipped: only root can make a setuid-root binary to try");
        return;
    }
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fs::path suid = fx.ws / "suid-probe";
    fs::copy_file(ESCAPE_PROBE, suid);
    REQUIRE(::chown(suid.c_str(), 0, 0) == 0);
    REQUIRE(::chmod(suid.c_str(), 04755) == 0);
    Result in = run(as_user(who, {testsupport::reachable(CAGE_RUNNER), "--policy", fx.policy_file(), "--workdir",
                                  fx.ws.string(), "--", suid.string(), "privileged"}));
    REFUSED(in);
    Result out = run(as_user(who, {suid.string(), "privileged"}));
    SUCCEEDS(out);
}

TEST_CASE("secrets are absent from the cage's environment", "[escape][env]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    std::vector<std::string> argv = {testsupport::reachable(CAGE_RUNNER),    "--policy", fx.policy_file(), "--workdir",
                                     fx.ws.string(), "--",       "/usr/bin/env"};
    Result r = run(as_user(who, argv),
                   {"AWS_SECRET_ACCESS_KEY=leak1", "GITHUB_TOKEN=leak2", "LANG=C.UTF-8",
                    "TERM=openshell:resolve:env:TERM_SECRET", "HTTPS_PROXY=http://evil:1",
                    "BASH_ENV=/tmp/evil.sh", "NODE_OPTIONS=--require=/tmp/evil.js", "TZ=UTC",
                    "HOME=" + fx.home.string(),
                    "PATH=/root/.pyenv/shims:" + fx.out.string() + ":/usr/bin:/bin"});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(r.out.find("leak") == std::string::npos);
    CHECK(r.out.find("openshell:resolve") == std::string::npos);
    CHECK(r.out.find("evil") == std::string::npos);
    CHECK(r.out.find("BASH_ENV") == std::string::npos);
    CHECK(r.out.find("NODE_OPTIONS") == std::string::npos);
    CHECK(r.out.find("LANG=C.UTF-8\n") != std::string::npos);
    CHECK(r.out.find("TZ=UTC\n") != std::string::npos);
    CHECK(r.out.find("\nPATH=/usr/bin:/bin\n") != std::string::npos);
    CHECK(r.out.find("TMPDIR=/tmp/toolcage-") != std::string::npos);
    CHECK(r.out.find("PWD=" + fx.ws.string() + "\n") != std::string::npos);
}

TEST_CASE("a daemonised grandchild does not outlive the step", "[escape][reaper]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fs::path pidfile = fx.ws / "daemon.pid";
    Result r = fx.caged(who, {"daemon", pidfile.string()});
    SUCCEEDS(r);
    std::ifstream f(pidfile);
    int pid = 0;
    REQUIRE(f >> pid);
    CHECK(pid > 0);
    // Gone: killed and reaped when the step ended. Its pid is the one it had inside the step's
    // PID namespace (where there is one), so it is looked for by its working directory, the
    // workspace, which no other process has.
    int left = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::error_code ec;
        if (fs::read_symlink(e.path() / "cwd", ec) == fx.ws) ++left;
    }
    CHECK(left == 0);
}

TEST_CASE("a fork bomb is contained by the process limit", "[escape][limits]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Fixture fx;
    fx.policy["cage"]["limits"]["nproc"] = 64;
    Result r = fx.caged(who, {"fork-many", "400"});
    INFO(r.out);
    CHECK(r.status == 1);  // fork failed before 400
    int made = -1;
    auto at = r.out.find("forked ");
    if (at != std::string::npos) std::sscanf(r.out.c_str() + at, "forked %d", &made);
    // RLIMIT_NPROC counts every process of the user, so other processes of nobody's lower
    // the count; what matters is that it stays under the limit.
    CHECK(made >= 0);
    CHECK(made < 64);
    Result out = fx.uncaged(who, {"fork-many", "100"});
    CHECK(out.status == 0);
}

TEST_CASE("cage status: exit codes, signals, and a missing program", "[cage][run]") {
    Fixture fx;
    auto run_sh = [&](const std::string& script) {
        return run({testsupport::reachable(CAGE_RUNNER), "--policy", fx.policy_file(), "--workdir", fx.ws.string(), "--",
                    "/bin/sh", "-c", script});
    };
    CHECK(run_sh("exit 0").status == 0);
    CHECK(run_sh("exit 7").status == 7);
    CHECK(run_sh("kill -TERM $$").status == 128 + SIGTERM);
    // In the workspace: the runner's own directory (the test's cwd) holds a cage binary, which
    // no workspace may (common/workspace_choice.h).
    Result missing = run({testsupport::reachable(CAGE_RUNNER), "--policy", fx.policy_file(), "--workdir", fx.ws.string(), "--",
                          "no-such-program-x"});
    CHECK(missing.status == 127);
    CHECK(missing.out.find("execvp(\"no-such-program-x\")") != std::string::npos);
}
