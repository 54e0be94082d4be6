// What no policy can allow: a write to the files that decide what toolcage does (the profile's
// SOUL.md, config.yaml, .env, shell-hooks-allowlist.json, toolcage.json, the agent's hook
// settings), to the installed policies, or to the toolcage binaries.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/verdict.h"
#include "hook/call/tool_call.h"

namespace toolcage::hook {

struct ProtectedSet {
    std::vector<std::string> files;  // absolute, as configured
    std::vector<std::string> dirs;   // absolute; everything below is protected
    std::string home;                // for ~ in commands

    // files and dirs again, each also by its real location (symlinks resolved). Worked out on
    // first use: most calls never need it, and resolving costs system calls.
    const ProtectedSet& resolved() const;

private:
    mutable std::shared_ptr<ProtectedSet> resolved_;
    bool is_resolved_ = false;
};

// The set for one call: the profile's files, the agent's own (call.protected_extra), every
// policy directory in `policy_dirs` and toolcage, toolcage-relay in `binary_dir`.
ProtectedSet protected_set(const ToolCall& call, const std::vector<std::string>& policy_dirs,
                           const std::string& binary_dir, const std::string& home);

// A file tool writing `abs_path` (already absolute).
std::optional<Verdict> check_write(const std::string& abs_path, const ProtectedSet& set);

// A shell command run in `cwd`. `read_only`: the classifier found it read-only, so only its
// output redirects are looked at; otherwise every word that could name a file is.
// Conservative: an ambiguous word that may name a protected file counts as naming it.
std::optional<Verdict> check_command(const std::string& command, const std::string& cwd,
                                     const ProtectedSet& set, bool read_only);

}  // namespace toolcage::hook
