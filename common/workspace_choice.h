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
    // The policy's work roots (with_roots), absolute and normal: directories that hold projects
    // of their own, where a new one may be started. Never a workspace themselves.
    std::vector<std::string> roots;
};

// From the environment: $HOME, the passwd home; toolcage's binary directory, the policy
// directories and its state directories (common/user_home.h); the agents' configuration
// ($HERMES_HOME, ~/.hermes, ~/.claude, ~/.openclaw).
Guarded guarded_from_process();
// The same with toolcage's policy directories given (profile_dirs(), as strings), for a caller
// that has them already.
Guarded guarded_from_process(const std::vector<std::string>& policy_dirs);

// `g` with the policy's work roots ("workspace": {"roots"}) added: "~/x" is x in the user
// database's home (else $HOME's). A root that cannot be one here (it is a home, holds one, lies in
// a dot-directory or in toolcage's or an agent's files: refusal() below) is left out: less room
// is the safe side; root_problems() names them.
Guarded with_roots(Guarded g, const std::vector<std::string>& roots);
// The policy's roots that with_roots() leaves out, each with why, in words.
std::vector<std::string> root_problems(const Guarded& g, const std::vector<std::string>& roots);

// Why `dir` (absolute) cannot be a workspace, in words ("is the home directory"); empty when it
// can. decide() below makes the sentence with the fix.
std::string refusal(const std::string& dir, const Guarded& g);

// Files and directories whose presence makes a directory a project's root, for the fallback
// when the git top level above the working directory cannot be the workspace.
const std::vector<std::string>& project_markers();

// The workspace for a step that works in `workdir` (absolute): the nearest directory at or above
// it that holds a .git; when the only .git is above where the walk stops, or `workdir` is in a
// home, the nearest with a project marker; else, outside a home, `workdir` itself. The walk up
// stops at the first directory that cannot be a workspace (so a .git at $HOME or / never widens
// it). Empty when `workdir` itself cannot be one, or is in a home outside any project.
// Below a work root, the nearest .git under the root, else the root's child that holds workdir
// (a project of its own, new ones included); a root itself is none.
std::string choose(const std::string& workdir, const Guarded& g);

// The one decision of where a step that writes may write, which `run`, the hook, `check`,
// `explain` and `doctor` all make: the workspace, or a full sentence naming the directory, why
// none may be there and what to do. A step that only reads needs none.
struct Choice {
    std::string dir;     // the workspace; empty when none may be
    std::string reason;  // when `dir` is empty: why, and the fix
    std::string root;    // `workdir` is this work root: a new project may be started in it
    // Without a workspace, the read-only cage may still read `workdir` (it reads where it
    // works): not inside a dot-directory of the home nor in toolcage's or an agent's own files,
    // whose keys and settings it would read all of.
    bool readable = true;
    // Without a workspace, the directory a person may approve as one (a directory of the home
    // outside any project: the automatic choice may not take it, a person who sees it named
    // may); empty where nothing may be one (the home, /, a work root, a dot-directory).
    std::string approvable{};
    bool ok() const { return !dir.empty(); }
};
Choice decide(const std::string& workdir, const Guarded& g);

// The sentence for `dir` given as the workspace itself (`run --workspace`, the hook's rewrite):
// empty when it may be one; never a work root.
std::string refusal_sentence(const std::string& dir, const Guarded& g);

}  // namespace toolcage::workspace
