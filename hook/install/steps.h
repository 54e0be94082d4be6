// What the three agents' installers share: where toolcage itself is, which policies exist,
// recognising the hook command toolcage writes, and turning a change set into an Outcome.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hook/install/change_set.h"
#include "hook/install/install.h"

namespace toolcage::install {

// The absolute path of the running toolcage binary (/proc/self/exe).
std::string toolcage_binary();

// $HOME, or Error naming the option that avoids it.
std::string home_dir(const char* option);

// Throws Error unless `name` is an installed policy; the message lists the installed ones.
void require_installed_policy(const std::string& name);

// True when `command` runs `toolcage hook --agent <agent>` (any path to toolcage, any further
// options): the entries toolcage wrote, whatever binary wrote them.
bool is_toolcage_hook_command(const std::string& command, const std::string& agent);

// Applies (or, dry run, previews) `changes` and adds `note` when something changed.
Outcome finish(const ChangeSet& changes, bool dry_run, const std::string& agent,
               const std::string& note);

// What to write for a JSON file whose content went from `original` to `value`: the file as it
// is when they are equal; a backup's bytes when a backup holds exactly `value`; nothing (remove
// it) when `removable` (`value` holds nothing) and no backup exists, since toolcage created it;
// else `value` in the file's own layout.
std::optional<std::string> json_after(const FileState& before,
                                      const nlohmann::ordered_json& original,
                                      const nlohmann::ordered_json& value, bool removable);

}  // namespace toolcage::install
