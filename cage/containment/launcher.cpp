#include "cage/containment/launcher.h"

#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cage/containment/capabilities.h"
#include "cage/containment/landlock.h"
#include "common/sanitizers.h"

extern char** environ;

namespace toolcage::cage {

namespace {

[[noreturn]] void report(const CageSetup& s, char kind, int err, const std::string& call) {
    CageFailure f{};
    f.kind = kind;
    f.err = err;
    std::strncpy(f.call, call.c_str(), sizeof f.call - 1);
    ssize_t n = ::write(s.report_fd, &f, sizeof f);
    (void)n;
    ::_exit(127);
}

// Each step returns 0 or an errno and names the failing call in `what`.

// No controlling terminal: nothing to inject keystrokes into, and the terminal's signals
// reach the supervisor, which forwards them to this process group.
int new_session(std::string& what) {
    if (::setsid() < 0) {
        what = "setsid()";
        return errno;
    }
    return 0;
}

// The supervisor kills what is left when the step ends; if the supervisor itself dies, the
// step must not run on unsupervised.
int die_with_supervisor(const CageSetup& s, std::string& what) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        what = "prctl(PR_SET_PDEATHSIG, SIGKILL)";
        return errno;
    }
    if (::getppid() != s.supervisor) {
        what = "getppid() != supervisor";
        return ESRCH;
    }
    return 0;
}

int enter_workdir(const CageSetup& s, std::string& what) {
    if (::chdir(s.workdir.c_str()) != 0) {
        what = "chdir(\"" + s.workdir + "\")";
        return errno;
    }
    return 0;
}

// Whatever the caller left open (an agent's sockets, a credentials file) must not reach the
// step. Close-on-exec rather than close: the report pipe and the ruleset stay usable until exec.
int close_inherited_fds(std::string& what) {
    if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        what = "close_range(3, ~0U, CLOSE_RANGE_CLOEXEC)";
        return errno;
    }
    return 0;
}

// RLIMIT_AS is set last, just before exec (limit_address_space): it bounds the program's
// address space, and until exec ours may still need to map (a sanitizer's allocator, which
// reserves terabytes of shadow, maps more as it records stacks).
std::vector<Rlimit> limits_where(const CageSetup& s, bool address_space) {
    std::vector<Rlimit> out;
    for (const auto& l : s.limits)
        if ((l.resource == RLIMIT_AS) == address_space) out.push_back(l);
    return out;
}

int set_limits(const CageSetup& s, std::string& what) {
    if (int err = s.cgroup ? s.cgroup->join(what) : 0) return err;
    if (int err = s.memory ? s.memory->join(what) : 0) return err;
    return apply_limits(limits_where(s, false), what);
}

// A private network namespace (loopback only), made while this process still may: in its new
// user namespace it holds every capability, and the next step drops them all.
int make_namespaces(const CageSetup& s, std::string& what) {
    return make_network_namespace(s.network, what);
}

int make_private_network(const CageSetup& s, std::string& what) {
    return enter_private_network(s.network, what);
}

// Exec may never add privileges again (setuid bits and file capabilities are ignored);
// Landlock and seccomp both require it of an unprivileged process.
int set_no_new_privs(std::string& what) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        what = "prctl(PR_SET_NO_NEW_PRIVS, 1)";
        return errno;
    }
    return 0;
}

int restrict_files_and_network(const CageSetup& s, std::string& what) {
    return restrict_self(s.landlock_fd, s.landlock_flags, what);
}

// The supervisor reads the step's stderr to say afterwards what the cage refused.
int watched_stderr(const CageSetup& s, std::string& what) {
    if (s.stderr_fd < 0) return 0;
    if (::dup2(s.stderr_fd, STDERR_FILENO) < 0) {
        what = "dup2(" + std::to_string(s.stderr_fd) + ", 2)";
        return errno;
    }
    if (s.stdout_to_stderr_fd && ::dup2(s.stderr_fd, STDOUT_FILENO) < 0) {
        what = "dup2(" + std::to_string(s.stderr_fd) + ", 1)";
        return errno;
    }
    return 0;
}

int filter_system_calls(const CageSetup& s, std::string& what) {
    return s.seccomp ? install_seccomp(*s.seccomp, what) : 0;
}

int restore_signal_mask(const CageSetup& s, std::string& what) {
    if (::sigprocmask(SIG_SETMASK, &s.saved_mask, nullptr) != 0) {
        what = "sigprocmask(SIG_SETMASK, saved)";
        return errno;
    }
    return 0;
}

}  // namespace

void enter_cage(const CageSetup& s) {
    std::string what;
    int err = 0;
    // The order is the argument: nothing after a step can undo it. The private network needs
    // the capabilities of its new user namespace, so it comes before they are all dropped;
    // capabilities go before no_new_privs and Landlock, seccomp comes last so that it does not
    // filter our own setup (it refuses new namespaces).
    if ((err = new_session(what)) || (err = die_with_supervisor(s, what)) || (err = watched_stderr(s, what)) ||
        (err = enter_workdir(s, what)) || (err = close_inherited_fds(what)) ||
        (err = set_limits(s, what)))
        report(s, 's', err, what);
    // Namespaces the kernel will not make here end this process with a report of their own:
    // for cage.network "auto" the supervisor goes on with Landlock's port rule
    // (cage/containment/netns.h).
    if ((err = make_namespaces(s, what))) report(s, 'n', err, what);
    if ((err = make_private_network(s, what)) ||
        (err = drop_all_capabilities(s.cap_last_cap, what)) || (err = set_no_new_privs(what)) ||
        (err = restrict_files_and_network(s, what)) ||
        (err = filter_system_calls(s, what)) || (err = restore_signal_mask(s, what)))
        report(s, 's', err, what);

    std::vector<char*> argv, envp;
    for (const auto& a : s.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : s.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    // Held until exec: after RLIMIT_AS nothing may be allocated or freed (a sanitizer's
    // allocator maps a new region to record a stack even when memory is freed).
    const std::vector<Rlimit> address_space = limits_where(s, true);
    if ((err = apply_limits(address_space, what))) report(s, 's', err, what);
    // execvp searches the PATH of `environ`: the cage's own, already filtered.
    environ = envp.data();
    ::execvp(argv[0], argv.data());
    report(s, 'x', errno, "execvp(\"" + s.argv[0] + "\")");
}

namespace {

// The step's own calls need little; execvp() puts a copy of argv on the stack to run a script
// through /bin/sh (as posix_spawn sizes its child's stack).
constexpr std::size_t kStepStack = 256 * 1024;

int run_step(void* setup) { enter_cage(*static_cast<const CageSetup*>(setup)); }

}  // namespace

pid_t start_step_process(const CageSetup& setup, StepStart how) {
    // AddressSanitizer cannot follow a process that runs on a stack it did not allocate (its
    // no-return handler writes below it): sanitizer builds fork.
    if (kAddressSanitizer) how = StepStart::fork;
    if (how == StepStart::fork) {
        pid_t pid = ::fork();
        if (pid == 0) enter_cage(setup);
        return pid;
    }
    // The step's stack, with a guard page below it. What it allocates in our heap until exec
    // stays there (a few hundred bytes); what it sets in our globals is put back here.
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t size =
        (kStepStack + (setup.argv.size() + 2) * sizeof(char*) + page - 1) / page * page + page;
    void* stack = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    if (::mprotect(stack, page, PROT_NONE) != 0) {
        int err = errno;
        ::munmap(stack, size);
        errno = err;
        return -1;
    }
    char** const saved_environ = environ;
    pid_t pid = ::clone(run_step, static_cast<char*>(stack) + size,
                        CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<CageSetup*>(&setup));
    int err = errno;
    environ = saved_environ;
    ::munmap(stack, size);
    errno = err;
    return pid;
}

}  // namespace toolcage::cage
