#include "cage/containment/seccomp.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "cage/containment/seccomp_rules.h"
#include "common/error.h"

namespace toolcage::cage {

namespace {

struct CtxRelease {
    void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxRelease>;

// libseccomp returns -errno.
void check(int rc, const std::string& call) {
    if (rc < 0) throw Error(syscall_error(call, -rc));
}

}  // namespace

SeccompProgram build_seccomp_program(SeccompVariant variant) {
    Ctx ctx{seccomp_init(SCMP_ACT_ALLOW)};
    if (!ctx) throw Error("seccomp_init(SCMP_ACT_ALLOW): failed (out of memory?)");
    // Only the native architecture is in the filter: an ia32 call (int 0x80) hits the bad-arch
    // action, and libseccomp sends x32 calls (nr | 0x40000000) on x86_64 there too.
    check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
          "seccomp_attr_set(SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)");
    // A binary search on the syscall number rather than a list: when the filter is loaded the
    // kernel runs it once for every syscall number (to cache the ones always allowed), and a
    // list of a hundred comparisons made that a third of the load's cost.
    check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2),
          "seccomp_attr_set(SCMP_FLTATR_CTL_OPTIMIZE, 2)");
    // The step starts single-threaded; TSYNC is not needed.
    for (const auto& rule : seccomp_rules()) {
        if (!rule_applies(rule, variant)) continue;
        std::string name(rule.syscall);
        int nr = seccomp_syscall_resolve_name(name.c_str());
        if (nr == __NR_SCMP_ERROR)
            throw Error("seccomp rule for " + name +
                        ": libseccomp does not know this system call; update libseccomp");
        for (const auto& alt : rule.alternatives) {
            int rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(rule.errno_value), nr,
                                            static_cast<unsigned>(alt.size()),
                                            alt.empty() ? nullptr : alt.data());
            check(rc,
                  "seccomp_rule_add(" + name + ", " + std::to_string(alt.size()) + " conditions)");
        }
    }
    // libseccomp 2.5 exports to a file descriptor only: a memfd, read back at once.
    int fd = ::memfd_create("toolcage-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        throw Error(syscall_error("memfd_create(\"toolcage-seccomp\", MFD_CLOEXEC)", errno));
    int rc = seccomp_export_bpf(ctx.get(), fd);
    if (rc < 0) {
        ::close(fd);
        check(rc, "seccomp_export_bpf()");
    }
    off_t size = ::lseek(fd, 0, SEEK_END);
    SeccompProgram prog;
    prog.code.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
    ssize_t got = ::pread(fd, prog.code.data(), static_cast<std::size_t>(size), 0);
    int err = errno;
    ::close(fd);
    if (got != size) throw Error(syscall_error("pread(seccomp program)", got < 0 ? err : EIO));
    return prog;
}

int install_seccomp(const SeccompProgram& prog, std::string& what) {
    sock_fprog fprog{static_cast<unsigned short>(prog.code.size()),
                     const_cast<sock_filter*>(prog.code.data())};
    if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
        what = "seccomp(SECCOMP_SET_MODE_FILTER, 0, {" + std::to_string(prog.code.size()) +
               " instructions})";
        return errno;
    }
    return 0;
}

}  // namespace toolcage::cage
