// The workspace files other programs obey or run (git's config and hooks, the agent's settings,
// editor and direnv files): the built-in list joined with the policy's cage.protected_paths, and
// the Landlock rules that keep those that exist at launch from being written in place.
#pragma once

#include "common/policy.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cage/containment/landlock.h"

namespace toolcage::cage {

// Protected whatever a policy says (a policy file may omit the field; it can only add).
// Workspace-relative; a trailing '/' names a directory and everything below it.
// .git/commondir and .git/config.worktree are here because git reads its config through them.
inline constexpr std::string_view kBuiltinProtectedPaths[] = {
    ".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks/", ".git/info/",
    ".gitmodules", ".claude/",  ".mcp.json",  ".vscode/",    ".idea/",
    ".envrc",      "SOUL.md",   "toolcage.json"};

struct ProtectedPath {
    std::string rel;  // normalised: no "./", no "//", no trailing '/'
    bool dir = false;  // written with a trailing '/': everything below is protected too
};

// The built-in list joined with `policy_entries`, normalised, without duplicates and without
// entries that lie below another entry. Throws Error for an empty entry, an absolute one or one
// with "..".
std::vector<ProtectedPath> protected_paths(const std::vector<std::string>& policy_entries);

// True when `rel` (normalised, workspace-relative) is a protected path or lies below one.
bool is_protected(std::string_view rel, const std::vector<ProtectedPath>& paths);

// The policy's cage.protect is "landlock": also take in-place writing of the protected paths
// away in Landlock (see keep_protected_read_only for what that costs). Off by default ("check");
// the after-step check protects either way.
bool landlock_protection_requested(const CagePolicy& cage);

// Where `plan` grants write on the workspace root itself, replaces that grant by one rule per
// workspace entry (recursing only into the directories that hold a protected path), so that the
// protected paths that exist now cannot be opened for writing or truncated. The root keeps the
// rights to create, remove and rename entries (Landlock cannot take those from one name), so
// new files directly in the workspace root or in .git cannot be written either: git's lock
// files (.git/index.lock) and any new top-level file fail. Entries that are symlinks get no
// rule (a rule would land on their target). Returns notes on what could not be protected.
std::vector<std::string> keep_protected_read_only(LandlockPlan& plan, const std::string& workspace,
                                                  const std::vector<ProtectedPath>& paths);

}  // namespace toolcage::cage
