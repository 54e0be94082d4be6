#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "cage/containment/seccomp.h"
#include "cage/containment/seccomp_rules.h"

using namespace toolcage::cage;

TEST_CASE("every seccomp rule names a known system call and gives a reason", "[cage][seccomp]") {
    for (const auto& r : seccomp_rules()) {
        INFO(r.syscall);
        CHECK(seccomp_syscall_resolve_name(std::string(r.syscall).c_str()) != __NR_SCMP_ERROR);
        CHECK(!r.reason.empty());
        CHECK(!r.alternatives.empty());
        CHECK((r.errno_value == EPERM || r.errno_value == ENOSYS));
    }
}

TEST_CASE("the table covers the system calls the cage must refuse", "[cage][seccomp]") {
    std::set<std::string> named;
    for (const auto& r : seccomp_rules()) named.emplace(r.syscall);
    for (const char* s : {"socket",
                          "socketpair",
                          "io_uring_setup",
                          "io_uring_enter",
                          "io_uring_register",
                          "ptrace",
                          "process_vm_readv",
                          "process_vm_writev",
                          "pidfd_getfd",
                          "execveat",
                          "memfd_create",
                          "mount",
                          "fsopen",
                          "fsconfig",
                          "fsmount",
                          "move_mount",
                          "open_tree",
                          "mount_setattr",
                          "umount2",
                          "pivot_root",
                          "chroot",
                          "setns",
                          "unshare",
                          "clone",
                          "clone3",
                          "bpf",
                          "perf_event_open",
                          "userfaultfd",
                          "keyctl",
                          "add_key",
                          "request_key",
                          "init_module",
                          "finit_module",
                          "delete_module",
                          "kexec_load",
                          "kexec_file_load",
                          "ioctl"}) {
        INFO(s);
        CHECK(named.count(s));
    }
}

namespace {

// Runs `body` in a forked child under the cage's filter; returns its exit code.
template <typename F>
int under_filter(F body) {
    SeccompProgram prog = build_seccomp_program();
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

int refused_with(long rc, int err) {
    return rc < 0 && errno == err ? 0 : 1;
}

}  // namespace

TEST_CASE("the filter answers as the table says", "[cage][seccomp]") {
    REQUIRE_FALSE(build_seccomp_program().code.empty());
    // AF_UNIX is refused even with garbage in the upper half of the register.
    CHECK(under_filter([] {
              return refused_with(::syscall(SYS_socket, 0x100000000L | AF_UNIX, SOCK_STREAM, 0),
                                  EPERM);
          }) == 0);
    CHECK(under_filter([] {
              return refused_with(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), EPERM);
          }) == 0);
    CHECK(under_filter(
              [] { return ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0) >= 0 ? 0 : 1; }) == 0);
    CHECK(under_filter([] { return ::socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP) >= 0 ? 0 : 1; }) ==
          0);
    CHECK(under_filter([] {
              return refused_with(::socket(AF_INET, SOCK_STREAM, 262 /* MPTCP */), EPERM);
          }) == 0);
    CHECK(under_filter([] {
              return refused_with(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), EPERM);
          }) == 0);
    CHECK(under_filter([] { return refused_with(::socket(AF_INET6, SOCK_RAW, 58), EPERM); }) == 0);
    CHECK(under_filter([] { return refused_with(::socket(AF_PACKET, SOCK_RAW, 0), EPERM); }) == 0);
    CHECK(under_filter([] { return refused_with(::socket(AF_VSOCK, SOCK_STREAM, 0), EPERM); }) ==
          0);
    CHECK(under_filter([] { return refused_with(::socket(60, SOCK_STREAM, 0), EPERM); }) == 0);
    CHECK(under_filter([] { return ::socket(AF_NETLINK, SOCK_RAW, 0) >= 0 ? 0 : 1; }) == 0);
    CHECK(under_filter([] {
              return refused_with(::socket(AF_NETLINK, SOCK_RAW, 9 /* audit */), EPERM);
          }) == 0);
    int sv[2];
    CHECK(under_filter([&] { return ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? 0 : 1; }) ==
          0);
    CHECK(under_filter([&] { return ::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0 ? 0 : 1; }) ==
          0);
    CHECK(under_filter([&] {
              return refused_with(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), EPERM);
          }) == 0);
    CHECK(under_filter([] { return refused_with(::syscall(SYS_clone3, nullptr, 0), ENOSYS); }) ==
          0);
    // fork (clone without namespace flags) still works.
    CHECK(under_filter([] {
              pid_t c = ::fork();
              if (c == 0) _exit(0);
              int st;
              return c > 0 && ::waitpid(c, &st, 0) == c ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] {
              return refused_with(::syscall(SYS_unshare, 0x10000000 /* NEWUSER */), EPERM);
          }) == 0);
    CHECK(under_filter(
              [] { return ::syscall(SYS_unshare, 0x00000200 /* CLONE_FS */) == 0 ? 0 : 1; }) == 0);
}

TEST_CASE("the program embedded at build time is the table compiled now", "[cage][seccomp]") {
    const auto& embedded = compiled_seccomp_program().code;
    auto fresh = build_seccomp_program().code;
    REQUIRE(embedded.size() == fresh.size());
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        INFO(i);
        CHECK(embedded[i].code == fresh[i].code);
        CHECK(embedded[i].jt == fresh[i].jt);
        CHECK(embedded[i].jf == fresh[i].jf);
        CHECK(embedded[i].k == fresh[i].k);
    }
}

namespace {

struct SocketCall {
    long family, type, protocol;
    bool pair;  // socketpair(2) rather than socket(2)
};

// The families the table lets through in some form: every type and protocol, the edges
// around them included, and the same with garbage in the upper half of the family.
constexpr long kSweptFamilies[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};

std::vector<SocketCall> swept_calls() {
    std::vector<SocketCall> calls;
    for (long f : kSweptFamilies) {
        for (long t = 0; t < 16; ++t)
            for (long p : {0L, 1L, 2L, 3L, 5L, 6L, 7L, 17L, 58L, 132L, 255L, 262L, -1L}) {
                calls.push_back({f, t, p, false});
                if (p == 0) calls.push_back({f, t | SOCK_CLOEXEC | SOCK_NONBLOCK, p, false});
            }
        for (long t : {1L, 2L, 3L, 5L}) calls.push_back({f, t, 0, true});
    }
    return calls;
}

// Every other family up to 63, and the swept ones with garbage in the upper half: refused by
// the filter whatever the type. These are never made without the filter: on a kernel with
// modules each would send the kernel looking for one to load.
std::vector<SocketCall> other_calls() {
    std::vector<SocketCall> calls;
    for (long f = 0; f < 64; ++f) {
        if (std::find(std::begin(kSweptFamilies), std::end(kSweptFamilies), f) !=
            std::end(kSweptFamilies))
            continue;
        for (long t : {1L, 2L, 3L, 5L, 10L}) calls.push_back({f, t, 0, false});
        calls.push_back({f, SOCK_STREAM, 0, true});
    }
    for (long f : kSweptFamilies) {
        calls.push_back({(1L << 32) | f, SOCK_STREAM, 0, false});
        calls.push_back({(1L << 32) | f, SOCK_STREAM, 0, true});
    }
    return calls;
}

// What the table means: TCP over IP, netlink route queries, stream and seqpacket unix pairs;
// UDP too in a private network.
bool meant_refused(const SocketCall& c, SeccompVariant variant) {
    if (c.family < 0 || c.family > 0xffffffffL) return true;
    const long t = c.type & 0xf;
    if (c.pair) return c.family != AF_UNIX || t == SOCK_DGRAM || t == SOCK_RAW;
    if (c.family == AF_NETLINK) return c.protocol != NETLINK_ROUTE;
    if (c.family != AF_INET && c.family != AF_INET6) return true;
    if (t == SOCK_DGRAM) return variant == SeccompVariant::host_network;
    if (t != SOCK_STREAM) return true;
    return c.protocol != 0 && c.protocol != IPPROTO_TCP;
}

// The errno of each call (0: it succeeded), in a child, under `prog` or under no filter.
std::vector<int> outcomes(const std::vector<SocketCall>& calls, const SeccompProgram* prog) {
    int pipefd[2];
    REQUIRE(::pipe(pipefd) == 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipefd[0]);
        std::string what;
        if (prog &&
            (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || install_seccomp(*prog, what) != 0))
            _exit(100);
        std::vector<int> out;
        for (const auto& c : calls) {
            int sv[2];
            long rc = c.pair ? ::syscall(SYS_socketpair, c.family, c.type, c.protocol, sv)
                             : ::syscall(SYS_socket, c.family, c.type, c.protocol);
            out.push_back(rc < 0 ? errno : 0);
            if (rc >= 0) {
                if (c.pair) {
                    ::close(sv[0]);
                    ::close(sv[1]);
                } else {
                    ::close(static_cast<int>(rc));
                }
            }
        }
        ssize_t n = ::write(pipefd[1], out.data(), out.size() * sizeof(int));
        _exit(n == static_cast<ssize_t>(out.size() * sizeof(int)) ? 0 : 101);
    }
    ::close(pipefd[1]);
    std::vector<int> out(calls.size());
    std::size_t got = 0;
    auto* bytes = reinterpret_cast<char*>(out.data());
    while (got < out.size() * sizeof(int)) {
        ssize_t n = ::read(pipefd[0], bytes + got, out.size() * sizeof(int) - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(pipefd[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st));
    REQUIRE(WEXITSTATUS(st) == 0);
    REQUIRE(got == out.size() * sizeof(int));
    return out;
}

}  // namespace

// The filter's answer is told from the kernel's own by running each call twice: under the
// filter and under none. A call the kernel itself refuses with EPERM says nothing and is left
// out (few are, as root).
TEST_CASE("the socket rules refuse exactly the families, types and protocols they mean",
          "[cage][seccomp]") {
    const auto variant = GENERATE(SeccompVariant::host_network, SeccompVariant::private_network);
    const SeccompProgram prog = build_seccomp_program(variant);
    const auto calls = swept_calls();
    const std::vector<int> bare = outcomes(calls, nullptr);
    const std::vector<int> caged = outcomes(calls, &prog);
    std::size_t told = 0, refused = 0, allowed = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        if (bare[i] == EPERM) continue;
        ++told;
        const SocketCall& c = calls[i];
        const bool by_filter = caged[i] == EPERM;
        INFO((c.pair ? "socketpair(" : "socket(")
             << std::hex << "0x" << c.family << ", 0x" << c.type << ", " << std::dec << c.protocol
             << ") errno bare " << bare[i] << ", caged " << caged[i]);
        CHECK(by_filter == meant_refused(c, variant));
        // Not refused: the same answer as without the filter.
        if (!by_filter) CHECK(caged[i] == bare[i]);
        (by_filter ? refused : allowed) += 1;
    }
    // The sweep did reach both sides.
    CHECK(told > calls.size() * 9 / 10);
    CHECK(refused > 500);
    CHECK(allowed > 20);

    const auto others = other_calls();
    const std::vector<int> others_caged = outcomes(others, &prog);
    for (std::size_t i = 0; i < others.size(); ++i) {
        const SocketCall& c = others[i];
        INFO((c.pair ? "socketpair(" : "socket(")
             << std::hex << "0x" << c.family << ", 0x" << c.type << ") errno " << std::dec
             << others_caged[i]);
        CHECK(meant_refused(c, variant));
        CHECK(others_caged[i] == EPERM);
    }
}
