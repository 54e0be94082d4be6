// The parent's side of a caged step: a child subreaper that forwards the user's signals to
// the step's process group, waits for the step, then kills and reaps everything it left behind.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <vector>

namespace toolcage::cage {

// PR_SET_CHILD_SUBREAPER: orphans of the step are reparented to us, not to init.
// Throws Error naming the call.
void become_child_subreaper();

// Blocks SIGINT SIGTERM SIGHUP SIGQUIT and SIGCHLD (they are then taken with sigwaitinfo);
// returns the previous mask, which the step's process restores before exec.
sigset_t block_supervised_signals();

// What the step writes to its stderr, passed on while the supervisor waits for the step:
// `fd` says what to wait on (-1 when nothing, or no more), `forward` passes on what is there
// without blocking and says whether it stopped with more to read.
struct StepOutput {
    std::function<int()> fd;
    std::function<bool()> forward;
};

// Waits for `step` (leader of its own session and process group), forwarding SIGINT SIGTERM
// SIGHUP SIGQUIT to the group; reaps orphans on the way; passes on `output` as it comes.
// Returns the step's wait status. `end_fd`: the read end (O_NONBLOCK) of a pipe on which a
// step init writes the status of the step it ran; then `*ended` is set when the status came
// from there, and `step` may still be tearing down its namespaces. The supervised signals must
// be blocked (block_supervised_signals): they are read from a signalfd.
int wait_for_step(pid_t step, int end_fd = -1, bool* ended = nullptr, const StepOutput* output = nullptr);

// Kills every descendant of this process still alive (found through /proc/*/stat) and reaps
// them, until this process has no child left.
void kill_leftovers();

// Every descendant of `root`, read from /proc/*/stat (ppid chains).
std::vector<pid_t> list_descendants(pid_t root);

// Exit status as a shell reports it: the exit code, or 128+n for a death by signal n.
int exit_code_of(int wait_status);

}  // namespace toolcage::cage
