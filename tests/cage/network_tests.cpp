// cage.network: a private network namespace where user namespaces can be made, Landlock's port
// rule where not; the seccomp table's two variants; what doctor and --verbose say.
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "cage/containment/netns.h"
#include "cage/containment/seccomp.h"
#include "cage/doctor.h"
#include "step_harness.h"

using namespace steptest;
using namespace toolcage::cage;

namespace {

template <typename F>
int under_filter(SeccompVariant variant, F body) {
    SeccompProgram prog = build_seccomp_program(variant);
    pid_t pid = ::fork();
    if (pid == 0) {
        std::string what;
        if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || install_seccomp(prog, what) != 0)
            _exit(100);
        _exit(body());
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int opens(int family, int type, int protocol = 0) {
    int fd = ::socket(family, type, protocol);
    return fd >= 0 ? 0 : (errno == EPERM ? 1 : 2);
}

std::size_t program_size(SeccompVariant v) {
    return compiled_seccomp_program(v).code.size();
}

}  // namespace

TEST_CASE("the private-network variant of the seccomp table lets UDP through, nothing else",
          "[cage][seccomp][netns]") {
    const auto host = SeccompVariant::host_network;
    const auto priv = SeccompVariant::private_network;
    CHECK(under_filter(host, [] { return opens(AF_INET, SOCK_DGRAM); }) == 1);
    CHECK(under_filter(priv, [] { return opens(AF_INET, SOCK_DGRAM); }) == 0);
    CHECK(under_filter(priv, [] { return opens(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC); }) == 0);
    CHECK(under_filter(priv, [] { return opens(AF_INET, SOCK_STREAM); }) == 0);
    // Still refused in a private network: raw, packet, unix, MPTCP, new user namespaces.
    CHECK(under_filter(priv, [] { return opens(AF_INET, SOCK_RAW, IPPROTO_ICMP); }) == 1);
    CHECK(under_filter(priv, [] { return opens(AF_PACKET, SOCK_RAW); }) == 1);
    CHECK(under_filter(priv, [] { return opens(AF_UNIX, SOCK_STREAM); }) == 1);
    CHECK(under_filter(priv, [] { return opens(AF_INET, SOCK_STREAM, 262); }) == 1);
    CHECK(under_filter(priv, [] {
              return ::syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */) < 0 && errno == EPERM
                         ? 0
                         : 1;
          }) == 0);
    CHECK(under_filter(priv, [] {
              return ::syscall(SYS_unshare, 0x40000000 /* CLONE_NEWNET */) < 0 && errno == EPERM
                         ? 0
                         : 1;
          }) == 0);
    CHECK(program_size(host) != program_size(priv));
}

TEST_CASE("both variants embedded at build time are the table compiled now",
          "[cage][seccomp][netns]") {
    for (auto v : {SeccompVariant::host_network, SeccompVariant::private_network}) {
        const auto& embedded = compiled_seccomp_program(v).code;
        auto fresh = build_seccomp_program(v).code;
        REQUIRE(embedded.size() == fresh.size());
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            INFO(i);
            CHECK(embedded[i].code == fresh[i].code);
            CHECK(embedded[i].jt == fresh[i].jt);
            CHECK(embedded[i].jf == fresh[i].jf);
            CHECK(embedded[i].k == fresh[i].k);
        }
    }
}

TEST_CASE("cage.network picks the mode; an unknown setting is refused", "[cage][netns]") {
    const NetworkNeeds relay{true, 7}, closed{false, 7}, old_kernel{false, 3};
    std::string note;
    for (const NetworkNeeds& n : {relay, closed, old_kernel}) {
        CHECK(choose_network_mode("landlock", "p", n, note) == NetworkMode::landlock);
        CHECK(note.empty());
    }
    // Without a relay, from ABI 4 Landlock refuses every connect and bind: no namespace.
    CHECK(landlock_closes_network(closed));
    CHECK_FALSE(landlock_closes_network(relay));
    CHECK_FALSE(landlock_closes_network(old_kernel));
    CHECK(choose_network_mode("auto", "p", closed, note) == NetworkMode::landlock);
    CHECK(note.empty());

    std::string why;
    bool userns = can_create_user_namespace(&why);
    INFO(why);
    for (const NetworkNeeds& n : {relay, old_kernel}) {
        note.clear();
        CHECK(choose_network_mode("auto", "p", n, note) ==
              (userns ? NetworkMode::netns : NetworkMode::landlock));
        CHECK(note.empty() == userns);
    }
    if (userns) CHECK(choose_network_mode("netns", "p", closed, note) == NetworkMode::netns);
    CHECK_THROWS_WITH(choose_network_mode("bridge", "p", closed, note),
                      Catch::Contains("cage.network \"bridge\""));
}

TEST_CASE("doctor says which network mode run would use", "[cage][doctor][netns]") {
    REQUIRE(can_create_user_namespace(nullptr));
    toolcage::Policy p;
    p.name = "test";
    p.cage.read = {"/usr"};
    p.cage.execute = {"/usr"};
    p.cage.network = "netns";
    DoctorReport r = diagnose(p, "/tmp", 3);
    CHECK(r.network_mode == "netns");
    // Below ABI 4 Landlock has no network rights; the namespace stands in for them.
    for (const auto& m : r.landlock.missing) CHECK(m.rfind("net.", 0) != 0);
    std::string text = to_text(r);
    CHECK(text.find("net.connect_tcp") != std::string::npos);
    CHECK(text.find("by the private network namespace") != std::string::npos);
    CHECK(text.find("network (netns)") != std::string::npos);
    CHECK(to_json(r)["network_mode"] == "netns");

    p.cage.network = "landlock";
    DoctorReport l = diagnose(p, "/tmp", 3);
    CHECK(l.network_mode == "landlock");
    bool net_missing = false;
    for (const auto& m : l.landlock.missing) net_missing = net_missing || m == "net.connect_tcp";
    CHECK(net_missing);
}

TEST_CASE("netns mode: the step sees loopback only, and --verbose says so", "[cage][netns]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Scratch s;
    s.policy["cage"]["network"] = "netns";
    Result r = run_toolcage(s,
                            {"run", "--verbose", "--policy", s.policy_file(), "--", "/bin/sh", "-c",
                             "tail -n +3 /proc/net/dev | cut -d: -f1"},
                            {who, false, {}});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(r.out.find("network: netns") != std::string::npos);
    CHECK(r.out.find("    lo\n") != std::string::npos);
    // None of the host's other interfaces.
    std::ifstream dev("/proc/net/dev");
    std::string line;
    int others = 0;
    while (std::getline(dev, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        if (name == "lo") continue;
        ++others;
        CHECK(r.out.find(" " + name + "\n") == std::string::npos);
    }
    if (others == 0) WARN("the host has no interface but loopback");

    s.policy["cage"]["network"] = "landlock";
    Result l = run_toolcage(s, {"run", "--verbose", "--policy", s.policy_file(), "--", "/bin/true"},
                            {who, false, {}});
    CHECK(l.out.find("network: landlock") != std::string::npos);
}

TEST_CASE("without user namespaces auto falls back to landlock and says so; netns refuses",
          "[cage][netns][fallback]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    UsernsSysctlOff off;  // restored when the test ends, failed or not
    Launch how{who, !off.active(), {}};
    if (!off.active())
        WARN(
            "user.max_user_namespaces cannot be written here: a seccomp filter refuses "
            "CLONE_NEWUSER to toolcage instead");
    Scratch s;

    // Without a relay, from ABI 4 "auto" needs no namespace: Landlock refuses all TCP.
    s.policy["cage"]["network"] = "auto";
    Result closed = run_toolcage(
        s, {"run", "--verbose", "--policy", s.policy_file(), "--", "/bin/sh", "-c", "echo ran"},
        how);
    INFO(closed.out);
    CHECK(closed.status == 0);
    CHECK(closed.out.find("ran\n") != std::string::npos);
    CHECK(closed.out.find("no private network namespace") == std::string::npos);
    CHECK(closed.out.find("network: landlock (the host's network; no TCP connect or bind)") !=
          std::string::npos);

    // Below ABI 4 it wants one, and without one says what that leaves.
    Result a = run_toolcage(s,
                            {"run", "--verbose", "--landlock-abi", "3", "--policy", s.policy_file(),
                             "--", "/bin/sh", "-c", "echo ran"},
                            how);
    INFO(a.out);
    CHECK(a.status == 0);
    CHECK(a.out.find("ran\n") != std::string::npos);
    CHECK(a.out.find("cage.network \"auto\": no private network namespace") != std::string::npos);
    CHECK(a.out.find("TCP is not restricted: Landlock ABI 3 has no network rights") !=
          std::string::npos);
    CHECK(a.out.find("network: landlock (the host's network; TCP unrestricted") !=
          std::string::npos);
    // Without --verbose the fallback is still said: the step is less isolated than it could be.
    Result quiet = run_toolcage(
        s, {"run", "--landlock-abi", "3", "--policy", s.policy_file(), "--", "/bin/true"}, how);
    CHECK(quiet.status == 0);
    CHECK(quiet.out.find("no private network namespace") != std::string::npos);

    s.policy["cage"]["network"] = "netns";
    Result n = run_toolcage(
        s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c", "touch " + s.ws + "/ran"},
        how);
    INFO(n.out);
    CHECK(n.status == 2);
    CHECK(n.out.find("sets cage.network to \"netns\"") != std::string::npos);
    CHECK(n.out.find("no user namespace can be created") != std::string::npos);
    CHECK(n.out.find("\"landlock\"") != std::string::npos);  // the fix
    CHECK(::access((s.ws + "/ran").c_str(), F_OK) != 0);

    Result d = run_toolcage(s, {"doctor", "--json", "--policy", s.policy_file()}, how);
    INFO(d.out);
    auto j = nlohmann::json::parse(d.out.substr(d.out.find('{')));
    CHECK(j["would_run"] == false);
    CHECK(j["refusal"].get<std::string>().find("cage.network") != std::string::npos);
    s.policy["cage"]["network"] = "auto";
    Result da = run_toolcage(
        s, {"doctor", "--json", "--landlock-abi", "3", "--policy", s.policy_file()}, how);
    auto ja = nlohmann::json::parse(da.out.substr(da.out.find('{')));
    CHECK(ja["network_mode"] == "landlock");
    CHECK_FALSE(ja["network_note"].get<std::string>().empty());

    // And with user namespaces, the same policy gets its private network.
    Result back =
        run_toolcage(s, {"doctor", "--json", "--landlock-abi", "3", "--policy", s.policy_file()},
                     {who, false, {}});
    if (!off.active()) {
        auto jb = nlohmann::json::parse(back.out.substr(back.out.find('{')));
        CHECK(jb["network_mode"] == "netns");
    }
}
