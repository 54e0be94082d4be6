// The hook's side of workspace integrity. A git command the classifier lets run outside the cage
// still runs whatever the repository's config names (core.fsmonitor on `git status`, core.pager,
// diff textconv drivers, filters, `!` aliases, ...), and a caged step may have written that
// config, a submodule's, or a .git file pointing elsewhere. Such a command is caged instead.
//
// Why cage rather than rewrite with `-c key=` overrides: an include.path can pull in any file,
// driver names are open-ended (diff.<any>.textconv, filter.<any>.process), and git offers no
// switch that turns every one of them off; the cage is complete and costs one config read here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/policy.h"
#include "common/verdict.h"

namespace toolcage::hook {

// One git invocation's repository: the git directory and the config files git reads from it.
struct GitRepo {
    std::string gitdir;    // absolute
    std::string worktree;  // the working tree's top, empty for a bare repository
    std::vector<std::string> configs;  // config, config.worktree, the common dir's config
    std::string hooks;                 // the common dir's hooks directory
};

// What git finds from `dir` upward (a .git directory, a .git file's "gitdir:", or `dir` being a
// git directory itself), as git's discovery does; nullopt when there is no repository.
std::optional<GitRepo> find_git_repo(const std::string& dir);

// Cage when `command`, run in `cwd`, runs git in a repository (or a submodule git would recurse
// into) whose config names a program, or in a place known only at run time, or with config taken
// from a file (GIT_CONFIG_*). nullopt when the command does not run git or the config is clean.
// Reads a few small files; never throws.
std::optional<Verdict> check_git_config(const std::string& command, const std::string& cwd,
                                        const std::string& home);

// A file tool writing `abs` (absolute, normal) where git runs code from later: inside any git
// directory or onto a .git file (a repository nested in the workspace, a checkout's link), in the
// hooks directory of the repository the file lies in (its hooks/, or where core.hooksPath
// points: husky's .husky/_ and .husky/), or onto a config file its config includes. Looks only
// upward from `abs` and reads that repository's few config files: no walk of the tree.
std::optional<Verdict> check_git_write(const std::string& abs, const std::string& home);

// The workspace paths no file tool writes without a person's yes: the built-in list
// (cage/integrity/protected_paths.h) and the policy's cage.protected_paths; "x/" names a directory.
std::vector<std::string> protected_workspace_entries(const Policy& policy);

}  // namespace toolcage::hook
