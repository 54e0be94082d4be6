// Where git takes code from beside its config's own keys: the hooks directory core.hooksPath
// names (husky's .husky/_) and the files include.path / includeIf.*.path pull in. Shared by the
// cage's after-step check (which keeps them as they were) and the hook (whose file tools ask).
#pragma once

#include <string>
#include <vector>

namespace toolcage::gitconfig {

struct RunPlaces {
    // Absolute and lexically normal; empty when core.hooksPath is not set.
    std::string hooks_path;
    // The directories hooks_path's scripts run code from too: for husky's layout (".husky/_",
    // whose stubs run "../<hook>"), the directory above it.
    std::vector<std::string> hook_dirs;
    // Every file an include names, at any depth (up to 10), whether or not it exists and
    // whatever its includeIf condition: absolute and lexically normal.
    std::vector<std::string> includes;
};

// Reads `configs` (absolute; missing ones are skipped) and what they include, as git resolves
// the names: core.hooksPath against `worktree` (the repository's working tree; its git directory
// for a bare one), an include against its file's directory, "~/" against `home`. Each file is
// read only when it is a regular file of at most 1 MiB, without blocking.
RunPlaces run_places(const std::vector<std::string>& configs, const std::string& worktree, const std::string& home);

}  // namespace toolcage::gitconfig
