// Where a shell command the decision lets through runs: in the agent's shell (directory moves
// alone, in toolcage's words; anything under a policy with allow_runs "bare", as sent), in the
// read-only cage (every other allowed command), or in the cage; and the rewrite that puts it there. A command that needs a workspace where there is
// none (the agent's cwd is the home, /, or holds toolcage's files) is asked about instead.
#pragma once

#include <string>

#include "common/policy.h"
#include "common/verdict.h"
#include "hook/call/tool_call.h"

namespace toolcage::hook {

struct Placement {
    Verdict verdict;       // the decision's, or an ask when there is no workspace to run in
    std::string rewrite;   // empty: the command runs as sent
                           // (read_only false on an allow: toolcage's text for moves alone)
    bool read_only = false;
    std::string step_id;   // the step the rewrite starts; empty when it starts none
};

struct PlacementContext {
    const Policy& policy;
    std::string policy_arg;    // what the rewrite passes to `toolcage run --policy`
    std::string toolcage_bin;  // absolute path of the toolcage binary
    std::string workspace;     // the workspace chosen for the call's cwd; empty: none may be
    std::string step_id;       // what the rewrite passes to `toolcage run --step-id`
};

// `v` is the shell command's verdict, after the git and self-protection checks.
Placement place_shell_command(const ToolCall& call, const Verdict& v, const PlacementContext& pc);

}  // namespace toolcage::hook
