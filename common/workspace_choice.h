// Which directory a step may treat as its workspace (the tree it may write): never `/`, a home
// or one of its ancestors, a dot-directory of a home, nor a tree that holds or lies inside
// toolcage itself, its policies or an agent's own configuration. The hook, the classifier and
// `toolcage run` all choose with these functions.
#pragma once

#include <string>
#include <vector>

namespace toolcage::workspace {

// What a workspace must stay clear of, for this process.
struct Kept {
    std::string path;  // absolute, normal
    std::string what;  // for the refusal: "toolcage's binaries", "Claude Code's configuration"
    bool inside_too = true;  // nothing inside it is a workspace either (false: only the
                             // directory itself and what holds it; toolcage's binary directory
                             // may be a build tree whose tests make workspaces below it)
};
struct Guarded {
    std::vector<std::string> homes;  // $HOME and the passwd entry's home (absolute, normal)
    std::vector<Kept> keep_out;      // what a workspace may not be or contain
};

// From the environment: $HOME, the passwd home; toolcage's binary directory, the policy
// directories and its state directories (common/user_home.h); the agents' configuration
// ($HERMES_HOME, ~/.hermes, ~/.claude, ~/.openclaw).
Guarded guarded_from_process();
// The same with toolcage's policy directories given (profile_dirs(), as strings), for a caller
// that has them already.
Guarded guarded_from_process(const std::vector<std::string>& policy_dirs);

// Why `dir` (absolute) cannot be a workspace, in words; empty when it can.
std::string refusal(const std::string& dir, const Guarded& g);

// Files and directories whose presence makes a directory a project's root, for the fallback
// when the git top level above the working directory cannot be the workspace.
const std::vector<std::string>& project_markers();

// The workspace for a step that works in `workdir` (absolute): the nearest directory at or above
// it that holds a .git; when the only .git is above where the walk stops, or `workdir` is in a
// home, the nearest with a project marker; else, outside a home, `workdir` itself. The walk up
// stops at the first directory that cannot be a workspace (so a .git at $HOME or / never widens
// it). Empty when `workdir` itself cannot be one, or is in a home outside any project.
std::string choose(const std::string& workdir, const Guarded& g);

}  // namespace toolcage::workspace
