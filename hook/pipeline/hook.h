// `toolcage hook`: one tool call in (JSON on stdin, at most 16 MiB), the agent's answer out.
// Read the payload, find the agent, make the ToolCall, choose and load the policy, decide,
// log, answer. Every failure on the way is a refusal (exit 2), never an allow.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/policy.h"
#include "hook/adapters/adapters.h"

namespace toolcage::hook {

struct HookOptions {
    std::string agent;   // --agent: hermes, claude, openclaw; empty: from the payload's shape
    std::string policy;  // --policy: a name or a file; empty: SOUL.md, toolcage.json, default
};

// Loads a policy by name or file; throws toolcage::Error with the reason.
using PolicyLoader = std::function<Policy(const std::string&)>;

struct HookResult {
    std::string out;   // stdout
    std::string err;   // stderr (one line per message, each ending in a newline)
    int exit_code = 2;
};

// Bounded, but room for a Write or Edit of a large file (the content is part of the call).
inline constexpr size_t kMaxPayload = 16u << 20;

// The whole hook, without touching stdin, stdout or stderr (the audit log is written).
HookResult handle_payload(std::string_view payload, const HookOptions& opts,
                          const PolicyLoader& load, const HookEnv& env);

// Reads stdin, runs handle_payload, writes stdout and stderr; returns the exit code.
int run_hook(const HookOptions& opts, const PolicyLoader& load);

// Holds off the signals that would make the hook's last words (its deadline, a termination
// request) once its own answer is being written: an agent must read one answer, not two.
void hold_async_signals();

}  // namespace toolcage::hook
