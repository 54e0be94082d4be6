// The after-step check: the workspace's protected paths (cage/integrity/protected_paths.h) as they
// were before a caged step, compared once every process of the step is gone; whatever changed is
// put back, whatever appeared is removed, a .git renamed away is moved back, and each is reported.
// Landlock cannot stop a step from creating a new .claude/ or renaming .git away while it may
// create and rename in the workspace root: this check is what does.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "cage/integrity/protected_paths.h"

namespace toolcage::cage {

// `toolcage run` exits with this when the step changed a protected path, whatever the step's own
// exit status was (that one is printed with the report).
inline constexpr int kTamperExit = 3;

// One change the check found and what it did about it.
struct TamperEvent {
    std::string path;    // workspace-relative, e.g. ".git/hooks/pre-commit"
    std::string change;  // "changed", "created", "removed", "replaced", "renamed to X", ...
    std::string action;  // "restored", "removed", "moved back", "not restored: <why>"
    bool undone = false;
    // ".git/config changed; restored"
    std::string text() const;
};

// One protected path's state: absent, a file's bytes and mode, a symlink's target, a directory's
// entries (recursively); a file or directory this process cannot read is kept by its identity
// (device, inode, ctime, size), which still tells a change, but cannot be put back.
struct GuardNode {
    enum class Kind { absent, file, dir, symlink, other };
    Kind kind = Kind::absent;
    bool readable = true;
    bool too_large = false;  // a file beyond the 16 MiB kept in all: kept by identity only
    struct stat st {};
    std::string data;                                         // file bytes or symlink target
    std::vector<std::pair<std::string, GuardNode>> children;  // directories: sorted by name
};

class WorkspaceGuard {
  public:
    // Takes the snapshot of every protected path in `workspace` (absolute) and of .git's identity,
    // never following a symlink. Throws Error naming the path when the snapshot cannot be taken
    // (then nothing must run), e.g. a protected tree of more than 100000 entries.
    WorkspaceGuard(const std::string& workspace, std::vector<ProtectedPath> paths);
    ~WorkspaceGuard();
    WorkspaceGuard(const WorkspaceGuard&) = delete;
    WorkspaceGuard& operator=(const WorkspaceGuard&) = delete;

    // Compares with the snapshot and puts back what changed, through directory fds opened with
    // O_NOFOLLOW (never through a symlink). A .git moved elsewhere is looked for by its inode in
    // the workspace and in `search_dirs` (the step's TMPDIR). Never throws.
    std::vector<TamperEvent> restore(const std::vector<std::string>& search_dirs = {});

    // Every path it keeps: the policy's, and those it learned from the workspace (submodules'
    // and nested repositories' git directories, core.hooksPath and included config files).
    const std::vector<ProtectedPath>& paths() const { return paths_; }

    const std::string& workspace() const { return workspace_; }

    // The snapshot as bytes (CBOR), for the step's journal (cage/integrity/step_journal.h), and
    // back: `from_journal` accepts only a snapshot of `workspace` (the one at hand) whose every
    // name stays inside it, reopens it and checks it is the same directory (device and inode).
    // Throws Error naming what does not fit.
    std::string to_journal() const;
    static std::unique_ptr<WorkspaceGuard> from_journal(const std::string& bytes,
                                                        const std::string& workspace);
    std::size_t snapshot_bytes() const { return bytes_; }

  private:
    WorkspaceGuard() = default;
    std::string workspace_;
    int ws_fd_ = -1;
    std::vector<ProtectedPath> paths_;
    GuardNode git_;  // .git itself: a directory by identity only; a file or symlink by content
    std::vector<GuardNode> nodes_;  // one per paths_ entry
    // The git directories below .git (submodules', linked worktrees') there were before the step.
    std::vector<std::string> admin_dirs_;
    std::size_t bytes_ = 0;
};

// What `toolcage run` knows about the step, for the report.
struct TamperContext {
    std::string policy;
    std::string workspace;
    std::vector<std::string> argv;
};

// Prints each event on stderr ("toolcage run: tamper: .git/config changed; restored") and writes
// it as one JSON line in the decision log (the hook's: common/decision_log.h).
// Returns kTamperExit when there is any event, else `step_status`.
int report_tamper(const std::vector<TamperEvent>& events, int step_status,
                  const TamperContext& ctx);

// The JSON line written for one event (with its newline), for the tests.
std::string tamper_line(const TamperEvent& e, const TamperContext& ctx);

}  // namespace toolcage::cage
