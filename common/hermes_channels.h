// What Hermes carries from one session into the prompt of later ones, written by the agent
// itself: each channel is a policy setting (hermes.<key>: allow, ask or deny) and a rule id.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/verdict.h"

namespace toolcage {

struct HermesChannel {
    std::string_view key;   // the policy's field under "hermes"
    std::string_view rule;  // the rule id of a write to it
    std::string_view what;  // what Hermes does with it, for reasons and `policy rules`
};

// Sorted by key.
inline constexpr HermesChannel kHermesChannels[] = {
    {"context_files", "persist.context-file",
     "a context file Hermes puts into the system prompt of every session started in that directory "
     "(AGENTS.md, CLAUDE.md, .hermes.md, HERMES.md, .cursorrules, .cursor/rules/*.mdc, a project skill)"},
    {"cron_prompts", "persist.cron-prompt",
     "a scheduled job whose prompt Hermes runs later as a session of its own, with nobody watching"},
    {"memory", "persist.memory", "Hermes's memory (MEMORY.md), put into the system prompt of every later session"},
    {"skills", "persist.skill",
     "a skill (instructions and scripts) whose description Hermes lists in every later session's prompt "
     "and whose scripts run when it is used"},
    {"user_profile", "persist.user-profile",
     "Hermes's notes about the user (USER.md), put into the system prompt of every later session"},
};

const HermesChannel* find_hermes_channel(std::string_view key);

// Every channel at its default: a person is asked (and where none can answer, it is refused).
std::map<std::string, Decision> default_hermes_channels();

}  // namespace toolcage
