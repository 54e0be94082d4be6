#include "cage/netns.h"

#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace toolcage::cage {

std::string_view to_string(NetworkMode mode) {
    return mode == NetworkMode::netns ? "netns" : "landlock";
}

namespace {

int try_unshare_user(void*) {
    return ::unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
}

int write_proc_file(const char* path, const std::string& text, std::string& what) {
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        what = std::string("open(\"") + path + "\", O_WRONLY)";
        return errno;
    }
    ssize_t n = ::write(fd, text.data(), text.size());
    int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) {
        what = std::string("write(\"") + path + "\", \"" + text + "\")";
        return n < 0 ? err : EIO;
    }
    return 0;
}

// A new network namespace has loopback down.
int bring_up_loopback(std::string& what) {
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        what = "socket(AF_INET, SOCK_DGRAM) for SIOCSIFFLAGS";
        return errno;
    }
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    int err = 0;
    if (::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
        what = "ioctl(SIOCGIFFLAGS, \"lo\")";
        err = errno;
    } else {
        ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
        if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) {
            what = "ioctl(SIOCSIFFLAGS, \"lo\", IFF_UP)";
            err = errno;
        }
    }
    ::close(s);
    return err;
}

int make_relay_listener(int& out, std::string& what) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        what = "socket(AF_INET, SOCK_STREAM) for the relay";
        return errno;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(kRelayPortInNamespace);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        what = "bind(127.0.0.1:" + std::to_string(kRelayPortInNamespace) + ")";
        int err = errno;
        ::close(fd);
        return err;
    }
    if (::listen(fd, 4096) != 0) {
        what = "listen(127.0.0.1:" + std::to_string(kRelayPortInNamespace) + ")";
        int err = errno;
        ::close(fd);
        return err;
    }
    out = fd;
    return 0;
}

int send_fd(int channel, int fd, std::string& what) {
    char byte = 'L';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n;
    do n = ::sendmsg(channel, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != 1) {
        what = "sendmsg(SCM_RIGHTS, the relay's listening socket)";
        return n < 0 ? errno : EIO;
    }
    return 0;
}

}  // namespace

bool can_create_user_namespace(std::string* why) {
    // Ubuntu's AppArmor lets an unprivileged unshare(CLONE_NEWUSER) succeed but takes every
    // capability away in the new namespace: loopback could not be brought up there.
    if (::geteuid() != 0) {
        int fd = ::open("/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                        O_RDONLY | O_CLOEXEC);
        char c = '0';
        if (fd >= 0) {
            if (::read(fd, &c, 1) != 1) c = '0';
            ::close(fd);
        }
        if (c == '1') {
            if (why) *why = "kernel.apparmor_restrict_unprivileged_userns = 1";
            return false;
        }
    }
    // The child shares our memory and runs on this stack while we wait (CLONE_VFORK): far
    // cheaper than copying the page tables for one system call.
    alignas(16) char stack[16 * 1024];
    pid_t pid =
        ::clone(try_unshare_user, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
    if (pid < 0) {
        if (why) *why = syscall_error("clone(CLONE_VM | CLONE_VFORK)", errno);
        return false;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    if (why)
        *why = WIFEXITED(status) ? syscall_error("unshare(CLONE_NEWUSER)", WEXITSTATUS(status))
                                 : "unshare(CLONE_NEWUSER): the probe died";
    return false;
}

NetworkMode choose_network_mode(const std::string& setting, const std::string& policy_name,
                                std::string& note) {
    if (setting == "landlock") return NetworkMode::landlock;
    if (setting != "auto" && setting != "netns")
        throw Error("policy \"" + policy_name + "\": cage.network \"" + setting +
                    "\" is unknown; use auto, netns or landlock");
    std::string why;
    if (can_create_user_namespace(&why)) return NetworkMode::netns;
    if (setting == "netns")
        throw Error("policy \"" + policy_name +
                    "\" sets cage.network to \"netns\", but no user namespace can be created "
                    "here (" +
                    why +
                    "); allow unprivileged user namespaces (sysctl user.max_user_namespaces, "
                    "kernel.unprivileged_userns_clone) or set cage.network to \"auto\" or "
                    "\"landlock\"");
    note = "cage.network \"auto\": no private network namespace (" + why +
           "); using the Landlock port rule (mode landlock)";
    return NetworkMode::landlock;
}

PrivateNetwork plan_private_network(bool relay) {
    PrivateNetwork n;
    n.enabled = true;
    n.relay = relay;
    n.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
    n.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    return n;
}

int enter_private_network(const PrivateNetwork& n, std::string& what) {
    if (!n.enabled) return 0;
    if (n.supervisor_end >= 0) ::close(n.supervisor_end);
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        what = "unshare(CLONE_NEWUSER | CLONE_NEWNET)";
        return errno;
    }
    // Without CAP_SETUID in the parent namespace only one's own ids may be mapped, and the
    // group map needs setgroups() denied first. The supervisor made us non-dumpable, which
    // gives our /proc files to root: dumpable while we write the maps, then not again (exec
    // decides for the program).
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
        what = "prctl(PR_SET_DUMPABLE, 1)";
        return errno;
    }
    int err = write_proc_file("/proc/self/setgroups", "deny", what);
    if (!err) err = write_proc_file("/proc/self/gid_map", n.gid_map, what);
    if (!err) err = write_proc_file("/proc/self/uid_map", n.uid_map, what);
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (err) return err;
    if ((err = bring_up_loopback(what))) return err;
    if (!n.relay) return 0;

    int listener = -1;
    if ((err = make_relay_listener(listener, what))) return err;
    err = send_fd(n.channel, listener, what);
    ::close(listener);  // the relay holds it now; the step must not accept() on it
    if (err) return err;
    // Nothing of the step runs before the supervisor has started the relay and become our
    // subreaper: an orphan made earlier would escape it.
    char go = 0;
    ssize_t got;
    do got = ::read(n.channel, &go, 1);
    while (got < 0 && errno == EINTR);
    if (got != 1) {
        what = "read(the supervisor's go after starting the relay)";
        return got < 0 ? errno : ECONNABORTED;
    }
    ::close(n.channel);
    return 0;
}

int receive_relay_listener(int channel) {
    char byte = 0;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do n = ::recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n != 1) return -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int))) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
            return fd;
        }
    }
    return -1;
}

bool release_step(int channel) {
    char go = 'G';
    ssize_t n;
    do n = ::send(channel, &go, 1, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == 1;
}

}  // namespace toolcage::cage
