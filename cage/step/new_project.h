// `toolcage run --new-project DIR`: a project started in a work root of the policy. DIR is made
// directly in the root (or found there empty), with no symlink on the way, and becomes the step's
// working directory and workspace: the only place the step may write.
#pragma once

#include <string>

#include "common/workspace_choice.h"

namespace toolcage::cage {

// `dir` absolute, or relative to `workdir`; its parent must be one of `g.roots` (by real path).
// Returns the new directory's real path. Throws Error naming the directory, the problem and the
// fix when its parent is no work root, its name is not a plain one, a component is a symlink, or
// it exists and is not an empty directory.
std::string make_new_project(const std::string& dir, const std::string& workdir, const workspace::Guarded& g);

}  // namespace toolcage::cage
