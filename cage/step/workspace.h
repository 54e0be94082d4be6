// Where a caged step works: its working directory, the workspace (the git top level that holds
// it), its fresh TMPDIR and HOME; and the expansion of {workspace} {tmp} {home} in a policy.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage::cage {

struct StepPaths {
    std::string workdir;    // where the step starts (absolute)
    std::string workspace;  // common/workspace_choice.h decide(): the project holding workdir
    std::string tmp;        // the step's own TMPDIR
    std::string home;       // $HOME, empty when unset
};

// The cage part of a policy with every placeholder expanded and every path absolute and
// lexically normal. Entries that cannot be expanded ({home} without HOME) are left out: less
// access is the safe side. `notes` says what was left out and why.
struct ExpandedCage {
    std::vector<std::string> read;
    // Directories whose entries may be listed, not read (the read-only cage's working directory
    // where it holds toolcage's own state: cage/run.cpp).
    std::vector<std::string> list;
    std::vector<std::string> write;
    std::vector<std::string> execute;
    std::map<std::string, std::string> env_set;
    std::vector<std::string> notes;
};

// True when `path` (absolute, normal) is one of `cage.read` or lies below one.
bool cage_reads(const ExpandedCage& cage, const std::string& path);

// Throws Error for an unknown placeholder or a path that is not absolute after expansion.
ExpandedCage expand_cage_policy(const CagePolicy& cage, const StepPaths& paths);

// The write entries under `home` that do not exist yet (forge's named caches: ~/.npm/_cacache on
// a home where npm never ran) are made, mode 0700, so that Landlock can grant them: a rule needs
// an existing path, and the home itself is never writable. Errors are left to Landlock's note.
void make_missing_home_dirs(const ExpandedCage& cage, const std::string& home);

// One entry expanded; empty when it names {home} and HOME is unset. Throws Error as above.
std::string expand_placeholders(const std::string& entry, const StepPaths& paths);

}  // namespace toolcage::cage
