// Claude Code's PreToolUse command hooks. Claude Code pipes {session_id, transcript_path, cwd,
// permission_mode, hook_event_name, tool_name, tool_input, tool_use_id} and, on exit 0, reads
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":…,
// "permissionDecisionReason":…,"updatedInput":{…}}}. updatedInput replaces the whole input, so
// a cage rewrite (and the read-only cage's, for an allowed command) sends every original field
// back with only the command changed. An "ask" for a shell command carries the cage's rewrite
// too, so that what a person approves runs caged.
// On exit 2 Claude Code blocks the call and shows stderr to the model.
#include <nlohmann/json.hpp>

#include "hook/adapters/adapters.h"
#include "hook/call/paths.h"

namespace toolcage::hook {

using nlohmann::json;

ToolCall parse_claude(const json& payload, const HookEnv& env) {
    std::string event = require_string(payload, "", "hook_event_name");
    if (event != "PreToolUse")
        throw PayloadError("payload /hook_event_name: \"" + event +
                           "\": toolcage hook answers PreToolUse only; register it under "
                           "hooks.PreToolUse in .claude/settings.json");
    ToolCall c;
    c.agent = Agent::claude;
    c.tool = require_string(payload, "", "tool_name");
    const json& input = require_object(payload, "", "tool_input");
    c.input = input;
    c.session = optional_string(payload, "", "session_id");
    c.cwd = absolute_path(require_string(payload, "", "cwd"), env.process_cwd, env.home);
    // The settings that install this hook: an agent that rewrote them would be unhooked.
    std::string project = env.claude_project_dir.empty() ? c.cwd : env.claude_project_dir;
    for (const char* f : {"/.claude/settings.json", "/.claude/settings.local.json"})
        c.protected_extra.push_back(absolute_path(project + f, "/", env.home));
    if (!env.home.empty()) {
        c.protected_extra.push_back(env.home + "/.claude/settings.json");
        c.protected_extra.push_back(env.home + "/.claude/settings.local.json");
    }
    const std::string where = "/tool_input";
    if (c.tool == "Bash") {
        c.kind = ToolKind::shell;
        c.command = require_string(input, where, "command");
    } else if (c.tool == "Write" || c.tool == "Edit" || c.tool == "MultiEdit") {
        c.kind = ToolKind::write_file;
        c.paths.push_back(require_string(input, where, "file_path"));
    } else if (c.tool == "NotebookEdit") {
        c.kind = ToolKind::write_file;
        c.paths.push_back(require_string(input, where, "notebook_path"));
    } else if (c.tool == "Read") {
        c.kind = ToolKind::read_file;
        c.paths.push_back(require_string(input, where, "file_path"));
    } else if (c.tool == "Grep") {
        // Searches file contents below `path` (the cwd when absent).
        c.kind = ToolKind::read_file;
        std::string path = optional_string(input, where, "path");
        c.paths.push_back(path.empty() ? c.cwd : path);
        c.recursive = true;
    } else if (c.tool == "Glob") {
        // Lists the names of files matching `pattern` below `path` (the cwd when absent): judged
        // as a read of all below the directory the pattern's literal leading part names
        // (`../../.ssh/*`, `/root/.aws/*` reach out of `path`).
        c.kind = ToolKind::read_file;
        std::string path = optional_string(input, where, "path");
        c.paths.push_back(glob_base(path.empty() ? c.cwd : path, optional_string(input, where, "pattern")));
        c.recursive = true;
    }
    return c;
}

Answer answer_claude(const ToolCall& call, const Outcome& o) {
    // Audit mode decides nothing: Claude Code's "allow" would skip the user's own permission
    // prompt, which makes audit mode weaker than no hook at all. So no permission decision, only
    // the message saying what enforce mode would have done (the log holds it too); Claude Code
    // then asks, or not, as its own permission mode says.
    if (o.audit) return {dump_line({{"systemMessage", verdict_message(o.verdict)}}), 0};
    // A file write toolcage finds harmless is left to Claude Code's own permission mode: the
    // hook has no reason to skip the user's review of an edit.
    if (call.kind == ToolKind::other ||
        ((call.kind == ToolKind::write_file || call.kind == ToolKind::read_file) &&
         o.verdict.decision == Decision::allow))
        return {"{}\n", 0};
    json out = {{"hookEventName", "PreToolUse"}};
    std::string reason = verdict_message(o.verdict);
    switch (o.verdict.decision) {
        case Decision::allow:
            out["permissionDecision"] = "allow";
            if (!o.rewrite.empty()) {  // the read-only cage, or toolcage's words for a cd
                json updated = call.input;
                updated["command"] = o.rewrite;
                out["updatedInput"] = std::move(updated);
                reason += o.read_only ? " (runs inside toolcage's read-only cage)"
                                      : " (in toolcage's words: `" + o.rewrite + "`)";
            }
            break;
        case Decision::cage: {
            out["permissionDecision"] = "allow";
            json updated = call.input;
            updated["command"] = o.rewrite;
            out["updatedInput"] = std::move(updated);
            reason += " (runs inside toolcage's cage)";
            break;
        }
        case Decision::ask:
            // What the person approves is what runs: a shell command asked about carries its
            // cage rewrite, and Claude Code shows and runs that (updatedInput with "ask").
            out["permissionDecision"] = "ask";
            if (call.kind == ToolKind::shell) {
                if (o.rewrite.empty()) {  // no cage to run it in: an approval would run it bare
                    out["permissionDecision"] = "deny";
                    reason += " (refused, not asked: toolcage has no cage to run it in)";
                    break;
                }
                json updated = call.input;
                updated["command"] = o.rewrite;
                out["updatedInput"] = std::move(updated);
                reason += " (if approved, it runs inside toolcage's cage)";
            }
            break;
        case Decision::deny:
            out["permissionDecision"] = "deny";
            break;
    }
    out["permissionDecisionReason"] = reason;
    return {dump_line(json{{"hookSpecificOutput", out}}), 0};
}

}  // namespace toolcage::hook
