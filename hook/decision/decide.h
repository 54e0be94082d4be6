// The one decision for one tool call: the classifier for shell commands, where a file lands for
// file writes, a read-only check for Python, and the self-protection no policy can turn off.
#pragma once

#include <string>

#include "common/policy.h"
#include "common/workspace_choice.h"
#include "hook/call/outcome.h"
#include "hook/classify/classifier.h"
#include "hook/call/tool_call.h"
#include "hook/decision/self_protect.h"

namespace toolcage::hook {

struct DecideContext {
    const Policy& policy;
    std::string policy_arg;    // what the cage rewrite passes to `toolcage run --policy`
    std::string toolcage_bin;  // absolute path of the toolcage binary, for the rewrite
    ProtectedSet protect;
    std::string home;
    std::string step_id;  // the id a rewrite gives the step it starts (common/step_id.h)
    // Made once a call (hook/pipeline/hook.cpp) and passed down, so that no path is looked up
    // twice: what no workspace may be, and the call's cwd with its workspace, home and temp
    // directory (classify::make_context of call.cwd).
    const workspace::Guarded& guarded;
    classify::Context where;
    // Where a shell command's step starts: after its leading moves (`cd proj && make`), worked out
    // once by decide(); empty when that is where.cwd.
    std::string starts_in{};
};

// Never throws for anything an agent can send; an ask never turns into an allow.
Outcome decide(const ToolCall& call, const DecideContext& dc);

}  // namespace toolcage::hook
