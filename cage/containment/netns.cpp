#include "cage/containment/netns.h"

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

#include "cage/containment/channel.h"
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

}  // namespace

namespace {

// Ubuntu's AppArmor lets an unprivileged unshare(CLONE_NEWUSER) succeed but takes every
// capability away in the new namespace: loopback could not be brought up there.
bool apparmor_forbids_user_namespaces(std::string* why) {
    if (::geteuid() == 0) return false;
    int fd = ::open("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", O_RDONLY | O_CLOEXEC);
    char c = '0';
    if (fd >= 0) {
        if (::read(fd, &c, 1) != 1) c = '0';
        ::close(fd);
    }
    if (c != '1') return false;
    if (why) *why = "kernel.apparmor_restrict_unprivileged_userns = 1";
    return true;
}

}  // namespace

bool can_create_user_namespace(std::string* why) {
    if (apparmor_forbids_user_namespaces(why)) return false;
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

bool landlock_closes_network(const NetworkNeeds& needs) {
    return !needs.relay && needs.abi >= 4;
}

NetworkMode first_network_mode(const std::string& setting, const std::string& policy_name,
                               const NetworkNeeds& needs, std::string& note) {
    if (setting == "landlock") return NetworkMode::landlock;
    if (setting != "auto" && setting != "netns")
        throw Error("policy \"" + policy_name + "\": cage.network \"" + setting +
                    "\" is unknown; use auto, netns or landlock");
    if (setting == "auto" && landlock_closes_network(needs)) return NetworkMode::landlock;
    std::string why;
    if (apparmor_forbids_user_namespaces(&why))
        return network_without_namespace(setting, policy_name, needs, why, note);
    return NetworkMode::netns;
}

NetworkMode network_without_namespace(const std::string& setting, const std::string& policy_name,
                                      const NetworkNeeds& needs, const std::string& why,
                                      std::string& note) {
    if (setting == "netns")
        throw Error("policy \"" + policy_name +
                    "\" sets cage.network to \"netns\", but no user namespace can be created "
                    "here (" +
                    why +
                    "); allow unprivileged user namespaces (sysctl user.max_user_namespaces, "
                    "kernel.unprivileged_userns_clone) or set cage.network to \"auto\" or "
                    "\"landlock\"");
    note = "cage.network \"auto\": no private network namespace (" + why + "); " +
           (needs.abi >= 4 ? std::string("using the Landlock port rule (mode landlock)")
                           : "TCP is not restricted: Landlock ABI " + std::to_string(needs.abi) +
                                 " has no network rights (mode landlock)");
    return NetworkMode::landlock;
}

NetworkMode choose_network_mode(const std::string& setting, const std::string& policy_name,
                                const NetworkNeeds& needs, std::string& note) {
    NetworkMode mode = first_network_mode(setting, policy_name, needs, note);
    if (mode == NetworkMode::landlock) return mode;
    std::string why;
    if (can_create_user_namespace(&why)) return NetworkMode::netns;
    return network_without_namespace(setting, policy_name, needs, why, note);
}

PrivateNetwork plan_private_network(bool relay) {
    PrivateNetwork n;
    n.enabled = true;
    n.relay = relay;
    n.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
    n.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    return n;
}

int make_network_namespace(const PrivateNetwork& n, std::string& what) {
    if (!n.enabled) return 0;
    if (n.supervisor_end >= 0) ::close(n.supervisor_end);
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        what = "unshare(CLONE_NEWUSER | CLONE_NEWNET)";
        return errno;
    }
    return 0;
}

int enter_private_network(const PrivateNetwork& n, std::string& what) {
    if (!n.enabled) return 0;
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
    err = send_message(n.channel, 'L', listener);
    ::close(listener);  // the relay holds it now; the step must not accept() on it
    if (err) {
        what = "sendmsg(SCM_RIGHTS, the relay's listening socket)";
        return err;
    }
    // Nothing of the step runs before the supervisor has started the relay and become our
    // subreaper: an orphan made earlier would escape it.
    char go = 0;
    int none = -1;
    err = receive_message(n.channel, go, none);
    if (none >= 0) ::close(none);
    if (!err && go != 'G') err = EPROTO;
    if (err) {
        what = "recvmsg(the supervisor's go after starting the relay)";
        return err;
    }
    ::close(n.channel);
    return 0;
}

int receive_relay_listener(int channel) {
    char tag = 0;
    int fd = -1;
    if (receive_message(channel, tag, fd) == 0 && tag == 'L') return fd;
    if (fd >= 0) ::close(fd);
    return -1;
}

bool release_step(int channel) { return send_message(channel, 'G') == 0; }

}  // namespace toolcage::cage
