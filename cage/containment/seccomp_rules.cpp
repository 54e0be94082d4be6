#include "cage/containment/seccomp_rules.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>

namespace toolcage::cage {

namespace {

// The kernel reads these arguments as int: compare the low 32 bits only, so that garbage in
// the upper half can neither hide a match nor cause one.
constexpr scmp_arg_cmp low32_eq(unsigned arg, std::uint32_t value) {
    return {arg, SCMP_CMP_MASKED_EQ, 0xffffffffULL, value};
}
constexpr scmp_arg_cmp bits_set(unsigned arg, std::uint64_t bits) {
    return {arg, SCMP_CMP_MASKED_EQ, bits, bits};
}
// socket(2)'s type carries SOCK_NONBLOCK and SOCK_CLOEXEC above the type proper.
constexpr std::uint64_t kSockTypeMask = 0xf;
constexpr scmp_arg_cmp sock_type_is(unsigned arg, int type) {
    return {arg, SCMP_CMP_MASKED_EQ, kSockTypeMask, static_cast<std::uint64_t>(type)};
}

using Alternatives = std::vector<std::vector<scmp_arg_cmp>>;

const Alternatives always = {{}};

// socket(family, ...) for every family but the allowed ones: each number below the largest
// allowed one that is not allowed, and everything above it. "Above" compares all 64 bits, so
// that garbage in the upper half of the register is refused whatever the low half says; the
// numbers below then need their low 32 bits only. Families a newer kernel adds are above.
Alternatives families_except(std::initializer_list<int> allowed) {
    int top = 0;
    for (int a : allowed) top = std::max(top, a);
    Alternatives out;
    for (int f = 0; f < top; ++f)
        if (std::find(allowed.begin(), allowed.end(), f) == allowed.end())
            out.push_back({low32_eq(0, f)});
    out.push_back({{0, SCMP_CMP_GT, static_cast<std::uint64_t>(top), 0}});
    return out;
}

// AF_INET / AF_INET6 sockets of any type but SOCK_STREAM (1) and SOCK_DGRAM (2), by the bits
// of the type's low nibble: 4 or 8 set (4 to 15), or exactly 0 or 3.
Alternatives inet_not_stream_or_dgram() {
    static_assert(SOCK_STREAM == 1 && SOCK_DGRAM == 2 && kSockTypeMask == 0xf);
    Alternatives out;
    for (int family : {AF_INET, AF_INET6}) {
        out.push_back({low32_eq(0, family), bits_set(1, 0x4)});
        out.push_back({low32_eq(0, family), bits_set(1, 0x8)});
        out.push_back({low32_eq(0, family), sock_type_is(1, 0)});
        out.push_back({low32_eq(0, family), sock_type_is(1, 3)});
    }
    return out;
}

Alternatives inet_dgram() {
    return {{low32_eq(0, AF_INET), sock_type_is(1, SOCK_DGRAM)},
            {low32_eq(0, AF_INET6), sock_type_is(1, SOCK_DGRAM)}};
}

// AF_INET / AF_INET6 stream sockets whose protocol is neither 0 nor IPPROTO_TCP
// (MPTCP = 262, SCTP = 132 have their own stream sockets).
Alternatives inet_stream_not_tcp() {
    Alternatives out;
    for (int family : {AF_INET, AF_INET6}) {
        for (int p = 1; p < IPPROTO_TCP; ++p)
            out.push_back({low32_eq(0, family), sock_type_is(1, SOCK_STREAM), low32_eq(2, p)});
        // A negative protocol reads as a large unsigned number: refused here too.
        out.push_back(
            {low32_eq(0, family), sock_type_is(1, SOCK_STREAM), {2, SCMP_CMP_GT, IPPROTO_TCP, 0}});
    }
    return out;
}

// Namespace flags for clone() and unshare(). CLONE_NEWTIME shares its bit with clone()'s exit
// signal byte, so it is refused through unshare() and clone3() only.
Alternatives any_namespace_flag(bool with_newtime) {
    Alternatives out;
    for (std::uint64_t f : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
                            CLONE_NEWNET, CLONE_NEWCGROUP})
        out.push_back({bits_set(0, f)});
    if (with_newtime) out.push_back({bits_set(0, 0x80 /* CLONE_NEWTIME */)});
    return out;
}

}  // namespace

const std::vector<SeccompRule>& seccomp_rules() {
    static const std::vector<SeccompRule> table = {
        // Sockets: the cage talks TCP (through the relay) and nothing else.
        {"socket",
         {{low32_eq(0, AF_UNIX)}},
         EPERM,
         "no unix sockets: Landlock below ABI 9 cannot stop connect() to a daemon's socket"},
        {"socket", families_except({AF_UNIX, AF_INET, AF_INET6, AF_NETLINK}), EPERM,
         "no packet, vsock, bluetooth, alg, ... sockets: only IP and netlink route"},
        {"socket", inet_not_stream_or_dgram(), EPERM,
         "no raw or packet-level IP sockets: only TCP (and UDP in a private network)"},
        {"socket", inet_dgram(), EPERM,
         "no UDP or ICMP sockets on the host's network: Landlock filters TCP only", true},
        {"socket", inet_stream_not_tcp(), EPERM,
         "no MPTCP or SCTP: Landlock's TCP rules do not cover them"},
        {"socket",
         {{low32_eq(0, AF_NETLINK), {2, SCMP_CMP_GT, NETLINK_ROUTE, 0}}},
         EPERM,
         "netlink for NETLINK_ROUTE only (interface queries), no audit, uevent, xfrm, ..."},
        // A datagram socketpair can sendto() or re-connect() to any named or abstract socket,
        // an unnamed way to a daemon outside; SOCK_RAW becomes SOCK_DGRAM in af_unix. Stream
        // and seqpacket pairs are connected for good (connect() fails with EISCONN), and
        // build tools (make's jobserver, python's multiprocessing) need them.
        {"socketpair",
         {{low32_eq(0, AF_UNIX), sock_type_is(1, SOCK_DGRAM)},
          {low32_eq(0, AF_UNIX), sock_type_is(1, SOCK_RAW)}},
         EPERM,
         "no datagram socketpair: it can address sockets outside the cage"},
        {"socketpair", families_except({AF_UNIX}), EPERM, "socketpair is for unix sockets only"},

        // Ways around the syscall filter or into other processes.
        {"io_uring_setup", always, EPERM, "io_uring runs socket and open calls past seccomp"},
        {"io_uring_enter", always, EPERM, "io_uring runs socket and open calls past seccomp"},
        {"io_uring_register", always, EPERM, "io_uring runs socket and open calls past seccomp"},
        {"ptrace", always, EPERM, "no debugging of other processes"},
        {"process_vm_readv", always, EPERM, "no reading another process's memory"},
        {"process_vm_writev", always, EPERM, "no writing another process's memory"},
        {"pidfd_getfd", always, EPERM, "no stealing another process's file descriptors"},
        {"execveat",
         {{bits_set(4, AT_EMPTY_PATH)}},
         EPERM,
         "no exec of an open fd: fileless exec would skip Landlock's execute check"},
        {"memfd_create", always, EPERM, "no anonymous executable files (fileless exec)"},

        // Mounts and namespaces: a new view of the filesystem or of privileges.
        {"mount", always, EPERM, "no mounts"},
        {"umount2", always, EPERM, "no unmounts"},
        {"fsopen", always, EPERM, "no mounts (new mount API)"},
        {"fsconfig", always, EPERM, "no mounts (new mount API)"},
        {"fsmount", always, EPERM, "no mounts (new mount API)"},
        {"fspick", always, EPERM, "no mounts (new mount API)"},
        {"move_mount", always, EPERM, "no mounts (new mount API)"},
        {"open_tree", always, EPERM, "no mounts (new mount API)"},
        {"mount_setattr", always, EPERM, "no mounts (new mount API)"},
        {"pivot_root", always, EPERM, "no new root"},
        {"chroot", always, EPERM, "no new root"},
        {"setns", always, EPERM, "no joining other namespaces"},
        {"unshare", any_namespace_flag(true), EPERM,
         "no new namespaces: a user namespace hands out capabilities"},
        {"clone", any_namespace_flag(false), EPERM,
         "no new namespaces: a user namespace hands out capabilities"},
        {"clone3", always, ENOSYS,
         "its flags live in memory seccomp cannot read; ENOSYS makes libc fall back to clone"},

        // Kernel attack surface a build or a test has no use for.
        {"bpf", always, EPERM, "no BPF programs"},
        {"perf_event_open", always, EPERM, "no perf events (kernel attack surface, side channels)"},
        {"userfaultfd", always, EPERM, "no userfaultfd (a classic exploit primitive)"},
        {"keyctl", always, EPERM, "no access to the kernel keyrings (session secrets)"},
        {"add_key", always, EPERM, "no access to the kernel keyrings"},
        {"request_key", always, EPERM, "no access to the kernel keyrings"},
        {"init_module", always, EPERM, "no kernel modules"},
        {"finit_module", always, EPERM, "no kernel modules"},
        {"delete_module", always, EPERM, "no kernel modules"},
        {"kexec_load", always, EPERM, "no kernel replacement"},
        {"kexec_file_load", always, EPERM, "no kernel replacement"},

        // Terminal injection: typing commands into the user's shell.
        {"ioctl", {{low32_eq(1, TIOCSTI)}}, EPERM, "no faking input on a terminal"},
        {"ioctl", {{low32_eq(1, TIOCLINUX)}}, EPERM, "no console selection paste (TIOCLINUX)"},
    };
    return table;
}

bool rule_applies(const SeccompRule& rule, SeccompVariant variant) {
    return !rule.host_network_only || variant == SeccompVariant::host_network;
}

}  // namespace toolcage::cage
