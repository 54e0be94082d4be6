// The OpenClaw plugin's bridge (plugins/openclaw/index.js). The plugin's before_tool_call
// handler pipes {toolName, params, agentId, sessionId, workspaceDir, pluginDir} and maps the
// answer {decision, rule, reason, command} to OpenClaw's block / params / requireApproval; an
// allow with a command (the read-only cage) is a params rewrite too.
// Exit 0 for allow, cage and ask; exit 2 for deny and for any failure.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

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

// Node's fileURLToPath on Linux: file:// with an empty or localhost host, percent-decoded; an
// encoded '/' or a bad escape makes it throw, and OpenClaw then keeps the text as it is.
std::optional<std::string> file_url_path(const std::string& url) {
    std::string rest = url.substr(7);  // after file://
    if (rest.starts_with("localhost/")) rest = rest.substr(9);
    if (!rest.starts_with("/")) return std::nullopt;
    std::string out;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] != '%') {
            out += rest[i];
            continue;
        }
        if (i + 2 >= rest.size() || !std::isxdigit(static_cast<unsigned char>(rest[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(rest[i + 2])))
            return std::nullopt;
        const char c = static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
        if (c == '/') return std::nullopt;
        out += c;
        i += 2;
    }
    return out;
}

// The files OpenClaw's file tools may open for `p` (its path-utils: expandPath): a leading @ (a
// file reference) is dropped, and a second keeps the rest relative (@@x is ./@x); a file:// URL
// is its path. Its writes keep a literal @name where such a file exists: every reading is judged.
std::vector<std::string> openclaw_paths(const std::string& p) {
    std::vector<std::string> out = {p};
    std::string referenced = p;
    if (referenced.starts_with("@")) {
        referenced = referenced.substr(1);
        if (referenced.starts_with("@")) referenced = "./" + referenced;
    }
    if (referenced.starts_with("file://"))
        if (auto path = file_url_path(referenced)) referenced = *path;
    if (referenced != p) out.push_back(referenced);
    return out;
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
        c.paths = openclaw_paths(p);
    } else if (c.tool == "read") {
        c.kind = ToolKind::read_file;
        std::string p = file_tool_path(params);
        if (p.empty()) throw PayloadError("payload /params/path: required field is missing");
        c.paths = openclaw_paths(p);
    } else if (c.tool == "grep" || c.tool == "find" || c.tool == "ls") {
        // grep reads the contents below `path` (the cwd when absent), find lists the names its
        // glob pattern matches below it, ls one directory's names.
        c.kind = ToolKind::read_file;
        std::string p = optional_string(params, "/params", "path");
        for (std::string dir : openclaw_paths(p.empty() ? c.cwd : p)) {
            if (c.tool == "find") dir = glob_base(absolute_path(dir, c.cwd, env.home), optional_string(params, "/params", "pattern"));
            c.paths.push_back(dir);
        }
        c.recursive = c.tool != "ls";
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
