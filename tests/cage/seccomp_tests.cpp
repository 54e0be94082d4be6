#include <errno.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <set>

#include "cage/seccomp.h"
#include "cage/seccomp_rules.h"

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
