// git inside the read-only cage, which has no TMPDIR for the filtered copies a caged step gets
// (cage/settings/step_settings.h): git treats an unreadable ~/.gitconfig or /etc/gitconfig as fatal
// ("unknown error occurred while reading the configuration files"), so the step is told that
// there is none (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1).
#pragma once

#include "cage/step/workspace.h"

namespace toolcage::cage {

// Sets GIT_CONFIG_GLOBAL=/dev/null in `cage.env_set` when `home` is set and neither
// ~/.gitconfig nor ~/.config/git/config lies under one of `cage.read`, and GIT_CONFIG_NOSYSTEM=1
// when /etc/gitconfig does not; a policy's own values are kept.
void hide_unreadable_git_config(ExpandedCage& cage, const std::string& home);

}  // namespace toolcage::cage
