#include "hook/decision/run_placement.h"

#include "hook/decision/rewrite.h"
#include "hook/decision/shell_state.h"

namespace toolcage::hook {

namespace {

Verdict no_workspace(const ToolCall& call, const Verdict& v) {
    return {Decision::ask, "hook.no-workspace",
            "`" + v.rule + "` would run this command in a cage, but its directory " + call.cwd +
                " is not in a project toolcage can make its workspace (it is a home directory, /, "
                "or holds toolcage's or an agent's own files); cd into the project first"};
}

}  // namespace

Placement place_shell_command(const ToolCall& call, const Verdict& v, const PlacementContext& pc) {
    Placement p{v, {}, false, {}};
    if (v.decision == Decision::deny || v.decision == Decision::ask) return p;
    if (v.decision == Decision::allow) {
        if (pc.policy.allow_runs == "bare") return p;
        // Directory moves alone run in the agent's shell, in toolcage's words; every other
        // command, builtins included, in the read-only cage.
        if (auto moves = only_moves(call.command)) {
            if (*moves != call.command) p.rewrite = *moves;
            return p;
        }
        p.read_only = true;
    }
    if (pc.workspace.empty()) {
        p.verdict = no_workspace(call, v);
        p.read_only = false;
        return p;
    }
    p.rewrite = cage_rewrite(CageRewrite{pc.toolcage_bin, pc.policy_arg, pc.step_id, call.cwd,
                                         pc.workspace, p.read_only, call.command});
    p.step_id = pc.step_id;
    return p;
}

}  // namespace toolcage::hook
