// A caged step's changes as a changeset, on the snapshot mechanism (no overlay layer): before the
// step, the workspace's entries of the hold class (cage/integrity/hold_rule.h) are kept, bytes and
// all, and every other entry by its identity; after it, each change of the hold class is put back
// as it was and the step's version is moved aside into the step's directory of toolcage's state
// (cage/integrity/change_store.h), where only `toolcage land` takes it from; every other change
// landed and is listed.
#pragma once

#include <sys/stat.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cage/integrity/protected_paths.h"

namespace toolcage::cage {

// One change the hold pass found in the hold class.
struct HeldChange {
    std::string path;    // workspace-relative
    std::string change;  // "created", "changed", "removed", "replaced", "mode changed"
    std::string kind;  // what the step left there: "file", "directory", "symlink", "special file",
                       // "nothing"
    std::string rule;  // hold_rule.h's HoldReason::rule
    std::string why;
    bool put_back = true;  // the workspace holds the version from before the step again
    std::string note;      // why it was not put back, or ""
    // What the path held before the step and what the step left ("absent", "dir", "file:<sha256>",
    // "symlink:<sha256 of the target>", "special"), for the conflict check of `toolcage land`.
    std::string before, after;
};

// One change that landed at once (ordinary source, data, build outputs).
struct LandedChange {
    std::string path;
    std::string change;  // "created", "changed", "removed"
};

struct StepChanges {
    std::vector<HeldChange> held;
    std::vector<LandedChange> landed;  // at most kMaxListedLanded
    std::size_t landed_more = 0;       // landed changes beyond those listed
    // The step ran in a layer and what it replaced or removed is kept: `toolcage undo` can put
    // the workspace back (cage/integrity/step_undo.h).
    bool undoable = false;
};

inline constexpr std::size_t kMaxListedLanded = 1000;

// What a path holds now, in HeldChange::before's form; "absent" when nothing. Never follows a
// symlink. `ws_fd`: the workspace, opened O_DIRECTORY.
std::string path_state(int ws_fd, const std::string& rel);

class HoldPass {
  public:
    // Walks `workspace` (absolute) never through a symlink, skipping the protected paths (the
    // after-step check puts those back: cage/integrity/workspace_guard.h), every .git, and the
    // build outputs: node_modules, __pycache__, and a directory holding a CACHEDIR.TAG whose name
    // says it is an output (target, or ending in "cache"). `path_env` is the PATH the shadow
    // rule looks for programs in. Throws Error naming the path when the walk cannot be done
    // (then the step must not run): more than 200000 entries, a directory it cannot read.
    HoldPass(const std::string& workspace, std::vector<ProtectedPath> protect,
             std::string path_env);

    // After every process of the step is gone: puts back each change of the hold class and
    // moves the step's version into `aside` (a private directory, made if missing, on any file
    // system), and lists the rest. Never throws: a change it cannot put back says so in its note.
    StepChanges settle(const std::string& aside);

    std::size_t entries() const { return before_.size(); }

    // The snapshot as bytes (CBOR) for the step's directory, so that a step whose supervisor was
    // killed is settled by the next toolcage call (change_store.h: finish_held_steps). Only what
    // the hold needs is kept: the hold class, and the entries where a new module would shadow
    // one (the workspace's top directory, repositories' roots); the landed changes of such a step
    // are not listed. `from_bytes` accepts only a snapshot of `workspace` whose every name stays
    // inside it; throws Error naming what does not fit.
    std::string to_bytes() const;
    static HoldPass from_bytes(const std::string& bytes, const std::string& workspace);

    struct Entry {
        mode_t mode = 0;
        dev_t dev = 0;
        ino_t ino = 0;
        off_t size = 0;
        struct timespec mtime {
        }, ctime{};
        bool held = false;
        bool kept = false;  // a held file's bytes or a symlink's target are in `data`
        bool statted =
            true;  // false: known by name and type only (outside the hold class, before the step)
        std::string data;
    };

  private:
    HoldPass() = default;
    std::string workspace_;
    std::set<std::string>
        roots_;           // repositories' roots (directories holding .git); "" the workspace's
    bool listed_ = true;  // every entry is here: the landed changes can be listed
    std::vector<ProtectedPath> protect_;
    std::string path_env_;
    std::map<std::string, Entry> before_;
    struct timespec started_ {};  // just before the walk before the step began
    std::size_t kept_bytes_ = 0;
};

// A file's bytes held aside beyond this are not kept: a change to it is held, but the version
// from before the step cannot be put back (it is removed from the workspace, and the note says so).
inline constexpr std::size_t kMaxKeptFile = 16u << 20;
inline constexpr std::size_t kMaxKeptBytes = 64u << 20;

}  // namespace toolcage::cage
