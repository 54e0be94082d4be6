// The OpenClaw plugin's bridge (plugins/openclaw/index.js). The plugin's before_tool_call
// handler pipes {toolName, params, agentId, sessionId, workspaceDir, pluginDir} and maps the
// answer {decision, rule, reason, command} to OpenClaw's block / params / requireApproval; an
// allow with a command (the read-only cage) is a params rewrite too.
// Exit 0 for allow, cage and ask; exit 2 for deny and for any failure.
#include <nlohmann/json.hpp>

#include "hook/adapters/adapters.h"
#include "hook/call/paths.h"

namespace toolcage::hook {

using nlohmann::json;

namespace {

constexpr int kBlockExit = 2;

// The file tools take their target under different names across OpenClaw versions.
std::string file_tool_path(const json& params) {
    for (const char* key : {"path", "file_path", "filePath"}) {
        std::string p = optional_string(params, "/params", key);
        if (!p.empty()) return p;
    }
    return {};
}

}  // namespace

ToolCall parse_openclaw(const json& payload, const HookEnv& env) {
    ToolCall c;
    c.agent = Agent::openclaw;
    c.tool = require_string(payload, "", "toolName");
    const json& params = require_object(payload, "", "params");
    c.input = params;
    c.session = optional_string(payload, "", "sessionId");
    c.profile = optional_string(payload, "", "agentId");
    std::string workspace = optional_string(payload, "", "workspaceDir");
    if (!workspace.empty()) c.profile_dir = absolute_path(workspace, env.process_cwd, env.home);
    if (!env.home.empty()) c.protected_extra.push_back(env.home + "/.openclaw/openclaw.json");
    std::string plugin_dir = optional_string(payload, "", "pluginDir");
    if (!plugin_dir.empty())
        c.protected_extra.push_back(absolute_path(plugin_dir, env.process_cwd, env.home));
    std::string base = c.profile_dir.empty() ? env.process_cwd : c.profile_dir;
    std::string cwd = optional_string(payload, "", "cwd");
    c.cwd = absolute_path(cwd.empty() ? base : cwd, base, env.home);

    if (c.tool == "exec" || c.tool == "bash") {
        c.kind = ToolKind::shell;
        c.command = require_string(params, "/params", "command");
        std::string workdir = optional_string(params, "/params", "workdir");
        if (!workdir.empty()) c.cwd = absolute_path(workdir, c.cwd, env.home);
    } else if (c.tool == "write" || c.tool == "edit" || c.tool == "multi_edit") {
        c.kind = ToolKind::write_file;
        std::string p = file_tool_path(params);
        if (p.empty()) throw PayloadError("payload /params/path: required field is missing");
        c.paths.push_back(p);
    } else if (c.tool == "apply_patch") {
        c.kind = ToolKind::write_file;
        std::string text = optional_string(params, "/params", "input");
        if (text.empty()) text = optional_string(params, "/params", "patch");
        if (text.empty()) throw PayloadError("payload /params/input: required field is missing");
        c.paths = patch_targets(text);
        if (c.paths.empty())
            throw PayloadError("payload /params/input: the patch names no file");
    }
    return c;
}

Answer answer_openclaw(const ToolCall& /*call*/, const Outcome& o) {
    json out = {{"decision", to_string(o.verdict.decision)},
                {"rule", o.verdict.rule},
                {"reason", verdict_message(o.verdict)}};
    // cage, and allow in the read-only cage: the plugin runs this command instead.
    if (!o.rewrite.empty()) out["command"] = o.rewrite;
    return {dump_line(out), o.verdict.decision == Decision::deny ? kBlockExit : 0};
}

}  // namespace toolcage::hook
