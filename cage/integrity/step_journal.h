// The step's journal: the workspace's snapshot and who the step's processes are, on disk before
// the step starts, so that a supervisor killed mid-step (agents time a command out with SIGTERM,
// then SIGKILL) loses nothing: the next `toolcage run` or `toolcage hook` finishes the restore.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace toolcage::cage {

class WorkspaceGuard;

// <state dir>/journal (common/user_home.h: ~/.local/state/toolcage from the user database,
// else /tmp/toolcage-state-<uid>), made if missing; empty when neither is a private directory
// of ours. One directory per workspace below it (journal_dir).
std::string journal_root();
// Where journals may be found: the journal directory of each state directory, made or not.
std::vector<std::string> journal_roots();
// <root>/<hash of the workspace's path>.
std::string journal_dir(const std::string& workspace, const std::string& root);

// The start time of a process (field 22 of /proc/PID/stat, in clock ticks since boot); 0 when
// it is gone. A pid with another start time is another process.
unsigned long long process_start_time(pid_t pid);

// What a journal holds besides the snapshot.
struct StepRecord {
    std::string workspace;
    std::string policy;
    std::vector<std::string> argv;
    std::string tmpdir;         // the step's TMPDIR: its processes carry it in their environment
    std::string memory_cgroup;  // the step's memory cgroup, or empty
    bool pid_namespace = false;  // the step runs under an init of its own: it died with us
    pid_t step = 0;              // the step's process (leader of its session), once started
    unsigned long long step_start = 0;
};

// The journal of one running step. Its file is locked (flock) for as long as the supervisor
// lives: a journal whose lock can be taken is one whose supervisor is gone.
class StepJournal {
  public:
    StepJournal() = default;
    StepJournal(const StepJournal&) = delete;
    StepJournal& operator=(const StepJournal&) = delete;
    // Removes the journal (finish()) if it was not already.
    ~StepJournal();

    // Writes the journal: a file of an unpredictable name (O_EXCL, retried), written whole,
    // locked, then renamed into place, so that a reader sees all of it or nothing. Throws Error
    // naming the file when it cannot be written: then the step does not run.
    void begin(const WorkspaceGuard& guard, const StepRecord& record);
    // Writes it again with the step's process (without a PID namespace, the next run kills its
    // session from it). Best effort: a warning on failure.
    void record_step(pid_t step, bool pid_namespace);
    // The restore is done: the journal goes.
    void finish();

  private:
    void write(const std::string& snapshot);
    std::string dir_, path_, snapshot_;
    StepRecord record_;
    int fd_ = -1;
};

// A journal read back: the record and the snapshot's bytes. Throws Error when it cannot be read.
struct ReadJournal {
    StepRecord record;
    std::string snapshot;
};
ReadJournal read_journal(int fd, const std::string& path);

}  // namespace toolcage::cage
