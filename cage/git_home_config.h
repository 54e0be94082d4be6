// git inside a step whose policy does not let it read the home's git config: git treats an
// unreadable ~/.gitconfig as fatal ("unknown error occurred while reading the configuration
// files"), so such a step is told that there is none (GIT_CONFIG_GLOBAL=/dev/null).
#pragma once

#include "cage/workspace.h"

namespace toolcage::cage {

// Sets GIT_CONFIG_GLOBAL=/dev/null in `cage.env_set` when `home` is set and neither
// ~/.gitconfig nor ~/.config/git/config lies under one of `cage.read`; a policy's own
// GIT_CONFIG_GLOBAL is kept.
void hide_unreadable_git_config(ExpandedCage& cage, const std::string& home);

}  // namespace toolcage::cage
