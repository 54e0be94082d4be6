#include "cage/containment/probe.h"

#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "cage/containment/capabilities.h"
#include "cage/containment/landlock_uapi.h"

namespace toolcage::cage {

namespace ll = toolcage::landlock;

int probe_landlock_abi(std::string* why) {
    long abi = ::syscall(ll::kSysCreateRuleset, nullptr, 0, ll::kCreateRulesetVersion);
    if (abi >= 1) return static_cast<int>(abi);
    if (why) {
        if (errno == ENOSYS)
            *why = "not built into this kernel (CONFIG_SECURITY_LANDLOCK)";
        else if (errno == EOPNOTSUPP)
            *why = "disabled at boot (add landlock to lsm=)";
        else
            *why =
                std::string("landlock_create_ruleset(NULL, 0, VERSION): ") + std::strerror(errno);
    }
    return 0;
}

bool probe_seccomp() {
    // Mode 2 with a NULL program is refused with EFAULT where filters exist, EINVAL where not.
    return ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
           ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, nullptr) < 0 && errno == EFAULT;
}

KernelFeatures probe_kernel(bool test_userns) {
    KernelFeatures k;
    utsname u{};
    if (::uname(&u) == 0) k.release = u.release;
    k.landlock_abi = probe_landlock_abi(&k.landlock_why);
    if (k.landlock_abi >= 1) {
        long e = ::syscall(ll::kSysCreateRuleset, nullptr, 0, ll::kCreateRulesetErrata);
        k.landlock_errata = e > 0 ? static_cast<int>(e) : 0;
    }
    k.seccomp_filter = probe_seccomp();
    std::uint32_t action = SECCOMP_RET_KILL_PROCESS;
    k.seccomp_kill_process = ::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
    long pfd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
    if (pfd >= 0) {
        k.pidfd = true;
        ::close(static_cast<int>(pfd));
    }
    k.cap_last_cap = read_cap_last_cap();
    if (test_userns) {
        pid_t pid = ::fork();
        if (pid == 0) {
            // "Unprivileged": as root, ask for nobody (65534), not for root.
            if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) _exit(EPERM);
            _exit(::unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
        }
        int status = 0;
        if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
            k.unprivileged_userns = WEXITSTATUS(status) == 0 ? 1 : 0;
            if (WEXITSTATUS(status) != 0)
                k.userns_why =
                    std::string("unshare(CLONE_NEWUSER): ") + std::strerror(WEXITSTATUS(status));
        }
        std::ifstream f("/proc/sys/kernel/unprivileged_userns_clone");
        int v = 1;
        if (f >> v && v == 0) {
            k.unprivileged_userns = 0;
            k.userns_why = "kernel.unprivileged_userns_clone = 0";
        }
    }
    return k;
}

}  // namespace toolcage::cage
