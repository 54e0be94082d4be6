// Resource limits for a caged step: rlimits from the policy (core dumps always off), and for a
// step started as root a pids cgroup, because the kernel never applies RLIMIT_NPROC to uid 0.
#pragma once

#include <sys/resource.h>

#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage::cage {

struct Rlimit {
    int resource;
    const char* name;  // "RLIMIT_NPROC"
    rlim_t value;
};

// Pure: the limits to set. Zero or negative values in the policy mean "leave as is", except
// RLIMIT_CORE, which is always 0 (a core file can hold a secret from memory). Without a memory
// cgroup (`memory_cgroup` false), memory_mb binds through RLIMIT_AS at twice its value (JITs
// reserve address space they never touch: node's WebAssembly some 10 GiB, java a quarter of
// the RAM for its heap), unless as_mb sets a limit of its own.
std::vector<Rlimit> plan_limits(const CageLimits& limits, bool memory_cgroup = false);

// In the step's process: soft and hard limits both set to the planned value, or to the current
// hard limit when that is lower (an unprivileged process cannot raise it).
// Returns 0 or an errno; `what` receives the failing call as written.
int apply_limits(const std::vector<Rlimit>& limits, std::string& what);

// A pids cgroup (v2, or v1's pids hierarchy) limiting the step's process count; used only when
// running as root, because RLIMIT_NPROC already binds everyone else. It is kept between steps
// (toolcage-nproc-<limit>) and shared by the steps that run at the same time with that limit.
class PidsCgroup {
  public:
    PidsCgroup() = default;
    PidsCgroup(const PidsCgroup&) = delete;
    PidsCgroup& operator=(const PidsCgroup&) = delete;
    ~PidsCgroup();

    // Best effort: returns a note when no cgroup could be made (then `active()` is false).
    std::string create(long max_pids);
    bool active() const { return !dir_.empty(); }
    const std::string& dir() const { return dir_; }
    // In the step's process, while it is still single-threaded: moves itself in.
    // Returns 0 or an errno.
    int join(std::string& what) const;

  private:
    std::string dir_;
    std::string join_file_;  // v1: tasks; v2: cgroup.procs
};

// A memory cgroup of the step's own (cgroup v1's memory hierarchy, or v2 where the memory
// controller is delegated to ours), below the supervisor's: memory.limit_in_bytes / memory.max
// at cage.limits.memory_mb, so that a memory bomb meets the OOM killer inside it, not the
// machine's. Made per step (steps running at once must not share one limit) and removed when
// the step is over.
class MemoryCgroup {
  public:
    MemoryCgroup() = default;
    MemoryCgroup(const MemoryCgroup&) = delete;
    MemoryCgroup& operator=(const MemoryCgroup&) = delete;
    ~MemoryCgroup();

    // Best effort: returns a note when none could be made (then `active()` is false). `shared`:
    // one cgroup per limit value, made once and kept, that steps with the same limit share (the
    // read-only cage, whose start-up is most of an allowed command's cost: a cgroup's mkdir and
    // rmdir are a tenth of a millisecond each); else the step's own, removed after it.
    std::string create(long memory_mb, bool shared = false);
    bool active() const { return !dir_.empty(); }
    const std::string& dir() const { return dir_; }
    // In the step's process, single-threaded: moves itself in. Returns 0 or an errno.
    int join(std::string& what) const;
    // Once every process of the step is gone.
    void remove();

  private:
    std::string dir_;
    std::string join_file_;
    bool shared_ = false;
};

// Removes a step's memory cgroup left by a supervisor that was killed (from the journal).
void remove_memory_cgroup(const std::string& dir);

}  // namespace toolcage::cage
