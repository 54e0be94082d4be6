// The step's side of the fork: the ordered hardening steps, from a new session to exec.
// Everything is prepared by the parent before fork; here only system calls remain.
#pragma once

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "cage/containment/limits.h"
#include "cage/containment/netns.h"
#include "cage/containment/seccomp.h"
#include "cage/containment/step_init.h"

namespace toolcage::cage {

struct CageSetup {
    std::string workdir;
    std::vector<Rlimit> limits;
    const PidsCgroup* cgroup = nullptr;
    const MemoryCgroup* memory = nullptr;
    int cap_last_cap = 0;
    PrivateNetwork network;                   // not enabled: the host's network
    int landlock_fd = -1;                     // -1: no Landlock (best effort on an old kernel)
    std::uint32_t landlock_flags = 0;         // landlock_restrict_self() flags (audit logging)
    int stderr_fd = -1;                       // becomes the step's stderr; -1: ours
    bool stdout_to_stderr_fd = false;         // and its stdout (ours are one file: keep the order)
    const SeccompProgram* seccomp = nullptr;  // null: no seccomp (best effort)
    std::vector<std::string> env;             // "K=V"
    std::vector<std::string> argv;
    sigset_t saved_mask;  // the mask before the supervisor blocked its signals
    pid_t supervisor = 0;
    int report_fd = -1;  // close-on-exec pipe: a failure is written here, exec closes it
    // Under a step init of its own: the init writes the step's wait status here as soon as the
    // step ends, before the namespaces' teardown (cage/containment/step_init.h); -1: it does not.
    int end_fd = -1;
    // enabled: the step runs under an init of its own (cage/containment/step_init.h)
    StepNamespace ns;
};

// What the step's process writes to report_fd when a step fails.
struct CageFailure {
    // 's': a hardening step failed; 'n': the private network namespace could not be made;
    // 'x': exec failed; 'p': the step's PID and mount namespaces could not be set up;
    // 'l': the step's layer could not be mounted (nothing of the step ran)
    char kind;
    int err;
    char call[500];
};

// Never returns: execs the program, or reports the failing call on report_fd and exits 127.
[[noreturn]] void enter_cage(const CageSetup& setup);

enum class StepStart {
    // clone(CLONE_VM | CLONE_VFORK): the step's process runs on a stack of its own in our
    // memory while we wait, suspended, until it has exec'd or died. No page table is copied
    // and no page is copied on write, on either side (fork() copied some 150 of them). Only
    // when the supervisor has nothing to do before the step's exec.
    vfork,
    // fork(): the supervisor runs on while the step's process sets up (the relay handover).
    fork,
};

// Starts the step's process running enter_cage(setup). Returns its pid, or -1 with errno set.
pid_t start_step_process(const CageSetup& setup, StepStart how);

}  // namespace toolcage::cage
