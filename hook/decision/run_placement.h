// Where a shell command the decision lets through runs: in the agent's shell (directory moves
// alone, in toolcage's words; anything under a policy with allow_runs "bare", as sent), in the
// read-only cage (every other allowed command, wherever the agent is: it writes nothing), or in
// the cage; and the rewrite that puts it there. A command that writes where no workspace may be
// (common/workspace_choice.h decide()) is asked about instead, with the decision's reason.
#pragma once

#include <optional>
#include <string>

#include "common/policy.h"
#include "common/verdict.h"
#include "common/workspace_choice.h"
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
    workspace::Choice workspace;  // the workspace decided for the call's cwd (with the policy's roots)
    std::string step_id;       // what the rewrite passes to `toolcage run --step-id`
};

// What a verdict placed in the cage (or, `read_only`, the read-only cage) becomes where no
// workspace may be (and the read-only cage may not read either): an ask where a person may
// approve the directory as the workspace (Choice::approvable), else a refusal; nullopt when it
// may run there.
std::optional<Verdict> no_workspace(const Verdict& v, bool read_only, const workspace::Choice& where);

// `v` is the shell command's verdict, after the git and self-protection checks.
Placement place_shell_command(const ToolCall& call, const Verdict& v, const PlacementContext& pc);

}  // namespace toolcage::hook
