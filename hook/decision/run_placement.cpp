#include "hook/decision/run_placement.h"

#include "hook/decision/new_project.h"
#include "hook/decision/rewrite.h"
#include "hook/decision/shell_state.h"

namespace toolcage::hook {

std::optional<Verdict> no_workspace(const Verdict& v, bool read_only, const workspace::Choice& where) {
    if (where.ok() || (read_only && where.readable)) return std::nullopt;
    const std::string what = read_only ? "`" + v.rule + "` would run this command in the read-only cage, which would read all of "
                                             "its directory: " + where.reason
                                       : "`" + v.rule + "` would run this command in the cage, which writes its workspace: " +
                                             where.reason;
    // A person may make a directory of the home the workspace: the question names it, and the
    // approved command runs in the cage with it writable (decide.cpp writes it into the rewrite).
    // Where nothing may be a workspace an approval could not run it caged: no question then.
    if (!where.approvable.empty())
        return Verdict{Decision::ask, "hook.no-workspace",
                       what + "; if a person approves, it runs in the cage with " + where.approvable +
                           " as its workspace"};
    return Verdict{Decision::deny, "hook.no-workspace",
                   what + " (refused, not asked: no directory here may be a workspace, so an approval could not run "
                          "it in the cage)"};
}

namespace {

// In a work root, a command that starts a project runs in the cage with the new directory as its
// workspace, made empty by `run --new-project` first; any other step that writes there is asked
// about (no_workspace).
std::optional<Placement> start_project(const ToolCall& call, const Verdict& v, const PlacementContext& pc) {
    if (v.decision != Decision::cage || pc.workspace.ok() || pc.workspace.root.empty()) return std::nullopt;
    auto np = new_project(call.command);
    if (!np) return std::nullopt;
    const std::string dir = pc.workspace.root + "/" + np->dir;
    Placement p{{Decision::cage, "workspace.new-project",
                 "starts the project " + dir + " in the work root " + pc.workspace.root +
                     ": it runs in the cage with that new, empty directory as its only writable place (" + v.rule +
                     ": " + v.reason + ")"},
                cage_rewrite(CageRewrite{pc.toolcage_bin, pc.policy_arg, pc.step_id, call.cwd, "", false, np->command,
                                         dir}),
                false,
                pc.step_id};
    return p;
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
    if (auto started = start_project(call, v, pc)) return *started;
    // The read-only cage needs no workspace: `run --read-only` reads where it works.
    if (auto ask = no_workspace(v, p.read_only, pc.workspace)) {
        p.verdict = *ask;
        p.read_only = false;
        return p;
    }
    p.rewrite = cage_rewrite(CageRewrite{pc.toolcage_bin, pc.policy_arg, pc.step_id, call.cwd,
                                         pc.workspace.dir, p.read_only, call.command, ""});
    p.step_id = pc.step_id;
    return p;
}

}  // namespace toolcage::hook
