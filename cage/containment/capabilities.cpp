#include "cage/containment/capabilities.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace toolcage::cage {

int read_cap_last_cap() {
    int fd = ::open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return CAP_LAST_CAP;
    char buf[16] = {};
    ssize_t got = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    char* end = nullptr;
    long n = got > 0 ? std::strtol(buf, &end, 10) : -1;
    if (got > 0 && end != buf && n >= 0 && n < 64) return static_cast<int>(n);
    return CAP_LAST_CAP;
}

namespace {

bool capget_v3(__user_cap_data_struct (&data)[2]) {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    return ::syscall(SYS_capget, &hdr, data) == 0;
}

}  // namespace

bool holds_privilege() {
    if (::geteuid() == 0 || ::getuid() == 0) return true;
    __user_cap_data_struct data[2]{};
    if (!capget_v3(data)) return true;  // cannot tell: act as if privileged
    for (const auto& d : data)
        if (d.permitted || d.effective || d.inheritable) return true;
    return false;
}

int drop_all_capabilities(int cap_last_cap, std::string& what) {
    // Ambient capabilities survive exec of ordinary files: clear them whoever we are.
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        what = "prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)";
        return errno;
    }
    if (!holds_privilege()) return 0;

    // Exec as uid 0 must not refill the capability sets (NOROOT), a setuid transition must not
    // touch them (NO_SETUID_FIXUP), and no one may undo that (the locks).
    constexpr unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                   SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                   SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (::prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) {
        what =
            "prctl(PR_SET_SECUREBITS, NOROOT|NO_SETUID_FIXUP|KEEP_CAPS_LOCKED|"
            "NO_CAP_AMBIENT_RAISE and locks)";
        return errno;
    }
    for (int cap = 0; cap <= cap_last_cap; ++cap) {
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
            what = "prctl(PR_CAPBSET_DROP, " + std::to_string(cap) + ")";
            return errno;
        }
    }
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[2]{};
    if (::syscall(SYS_capset, &hdr, none) != 0) {
        what = "capset({_LINUX_CAPABILITY_VERSION_3, 0}, {0, 0, 0})";
        return errno;
    }
    return 0;
}

}  // namespace toolcage::cage
