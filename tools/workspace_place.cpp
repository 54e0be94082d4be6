#include "tools/workspace_place.h"

#include <filesystem>
#include <system_error>

#include "common/path_text.h"
#include "hook/decision/run_placement.h"
#include "hook/decision/shell_state.h"

namespace toolcage::cli {

WorkspacePlace workspace_place(const std::string& cwd_in, const Policy& policy) {
    std::string cwd = cwd_in;
    if (cwd.empty() || cwd[0] != '/') {
        std::error_code ec;
        std::filesystem::path p = std::filesystem::absolute(cwd.empty() ? "." : cwd, ec);
        if (!ec) cwd = normal_path(p.string());
    }
    const workspace::Guarded g = workspace::with_roots(workspace::guarded_from_process(), policy.workspace.roots);
    WorkspacePlace p;
    p.context = classify::make_context(cwd, g);
    p.choice = workspace::decide(p.context.cwd, g);
    p.guarded = g;
    return p;
}

Verdict placed_verdict(const Verdict& v, const std::string& command, const WorkspacePlace& place,
                       const Policy& policy) {
    hook::ToolCall call;
    call.kind = hook::ToolKind::shell;
    call.command = command;
    call.cwd = place.context.cwd;
    // As the hook places it: where the command's leading moves take the shell (`cd proj && make`).
    const std::string starts_in = hook::cwd_after_moves(command, call.cwd).value_or(call.cwd);
    const workspace::Choice choice = starts_in == call.cwd ? place.choice : workspace::decide(starts_in, place.guarded);
    return hook::place_shell_command(call, v, {policy, "", "", choice, ""}).verdict;
}

nlohmann::json workspace_json(const workspace::Choice& c) {
    nlohmann::json j = {{"ok", c.ok()}, {"dir", c.dir}, {"reason", c.reason}};
    if (!c.root.empty()) j["root"] = c.root;
    if (!c.approvable.empty()) j["approvable"] = c.approvable;
    return j;
}

}  // namespace toolcage::cli
