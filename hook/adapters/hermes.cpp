// Hermes Agent's shell hooks (config.yaml `hooks: pre_tool_call:`). Hermes pipes
// {hook_event_name, tool_name, tool_input, session_id, cwd, profile, extra} to the hook and reads
// back {} (go on), {"action":"modify","args":{…}} (merged into the tool's args),
// {"action":"approve","message":…} (ask a person) or {"action":"block","message":…}.
// Exit code 2 blocks even without JSON; a block is written with both, since a Hermes without
// exit-2 support still reads the JSON, and one without fail_closed still honours exit 2.
#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/policy_loader.h"
#include "hook/adapters/adapters.h"
#include "hook/call/paths.h"

namespace toolcage::hook {

using nlohmann::json;

namespace {

constexpr int kBlockExit = 2;

// Hermes's tools (0.19.0, 0.20.x) that run code or write outside any cage toolcage can apply,
// sorted by name. `only_with`: the tool does so only when this input field is non-empty.
struct BeyondCage {
    std::string_view tool, why, only_with;
};
constexpr BeyondCage kBeyondCage[] = {
    {"browser_cdp", "sends raw DevTools commands to the browser (they run script in its pages)", ""},
    {"browser_exec", "runs JavaScript in the browser's page", ""},
    {"computer_use", "types and clicks into any program on the desktop", ""},
    {"cronjob", "schedules a script that runs before the job's prompt, outside any turn", "script"},
    {"setup_mcp", "registers a program Hermes starts as an MCP server, outside the cage", ""},
    {"skill_manage", "writes skills (instructions and scripts) the agent loads and runs later", ""},
};
static_assert(std::ranges::is_sorted(kBeyondCage, {}, &BeyondCage::tool));

const BeyondCage* beyond_cage(std::string_view tool) {
    auto it = std::ranges::lower_bound(kBeyondCage, tool, {}, &BeyondCage::tool);
    return it != std::end(kBeyondCage) && it->tool == tool ? &*it : nullptr;
}

// The profile's directory: Hermes runs the hook with that profile's HERMES_HOME; without it,
// the layout Hermes uses by default (~/.hermes, ~/.hermes/profiles/<name>).
std::string hermes_profile_dir(const HookEnv& env, const std::string& profile) {
    if (!env.hermes_home.empty()) return absolute_path(env.hermes_home, env.process_cwd, env.home);
    if (env.home.empty()) return {};
    if (profile.empty() || profile == "default") return env.home + "/.hermes";
    return env.home + "/.hermes/profiles/" + profile;
}

void parse_tool(ToolCall& c, const json& input, const std::string& cwd, const HookEnv& env) {
    const std::string where = "/tool_input";
    c.cwd = cwd;
    if (c.tool == "terminal") {
        c.kind = ToolKind::shell;
        c.command = require_string(input, where, "command");
        std::string workdir = optional_string(input, where, "workdir");
        if (!workdir.empty()) {
            c.cwd = absolute_path(workdir, cwd, env.home);
        } else if (env.terminal_cwd.starts_with("/")) {
            // Hermes runs terminal commands in TERMINAL_CWD when it is set, not in its own cwd.
            c.cwd = absolute_path(env.terminal_cwd, "/", env.home);
        }
    } else if (c.tool == "execute_code") {
        c.kind = ToolKind::execute_code;
        c.code = require_string(input, where, "code");
    } else if (c.tool == "write_file") {
        c.kind = ToolKind::write_file;
        c.paths.push_back(require_string(input, where, "path"));
    } else if (c.tool == "patch") {
        c.kind = ToolKind::write_file;
        std::string mode = optional_string(input, where, "mode");
        if (mode.empty() || mode == "replace") {
            c.paths.push_back(require_string(input, where, "path"));
        } else if (mode == "patch") {
            c.paths = patch_targets(require_string(input, where, "patch"));
            if (c.paths.empty())
                throw PayloadError("payload /tool_input/patch: names no file (expected \"*** Add File:\", "
                                   "\"*** Update File:\" or \"*** Delete File:\" lines)");
        } else {
            throw PayloadError("payload /tool_input/mode: \"" + mode +
                               "\" is neither \"replace\" nor \"patch\"");
        }
    } else if (const BeyondCage* b = beyond_cage(c.tool)) {
        if (b->only_with.empty() || !optional_string(input, where, std::string(b->only_with).c_str()).empty()) {
            c.kind = ToolKind::beyond_cage;
            c.why = std::string(b->why);
        }
    }
}

}  // namespace

ToolCall parse_hermes(const json& payload, const HookEnv& env) {
    std::string event = require_string(payload, "", "hook_event_name");
    if (event != "pre_tool_call")
        throw PayloadError("payload /hook_event_name: \"" + event +
                           "\": toolcage hook answers pre_tool_call only; register it under "
                           "hooks: pre_tool_call: in config.yaml");
    ToolCall c;
    c.agent = Agent::hermes;
    c.tool = require_string(payload, "", "tool_name");
    const json& input = require_object(payload, "", "tool_input");
    c.input = input;
    c.session = optional_string(payload, "", "session_id");
    c.profile = optional_string(payload, "", "profile");
    if (!c.profile.empty() && !is_policy_name(c.profile))
        throw PayloadError("payload /profile: \"" + c.profile +
                           "\" is not a profile name (letters, digits, - and _)");
    c.profile_dir = hermes_profile_dir(env, c.profile);
    // toolcage's Hermes plugin (its code and the config.json naming this binary): an agent that
    // could rewrite it would decide its own calls.
    if (!c.profile_dir.empty()) c.protected_extra.push_back(c.profile_dir + "/plugins/toolcage");
    if (!env.home.empty()) c.protected_extra.push_back(env.home + "/.hermes/plugins/toolcage");
    // The root of Hermes's tree holds the default profile and the profiles list itself.
    if (!env.home.empty())
        for (const char* f : {"/.hermes/config.yaml", "/.hermes/.env", "/.hermes/SOUL.md",
                              "/.hermes/shell-hooks-allowlist.json", "/.hermes/toolcage.json"})
            c.protected_extra.push_back(env.home + f);
    std::string cwd = optional_string(payload, "", "cwd");
    cwd = absolute_path(cwd.empty() ? env.process_cwd : cwd, env.process_cwd, env.home);
    parse_tool(c, input, cwd, env);
    return c;
}

Answer answer_hermes(const ToolCall& call, const Outcome& o) {
    const std::string message = verdict_message(o.verdict);
    switch (o.verdict.decision) {
        case Decision::allow:
            if (o.rewrite.empty()) return {"{}\n", 0};
            return {dump_line({{"action", "modify"}, {"args", {{"command", o.rewrite}}}}), 0};
        case Decision::cage:
            return {dump_line({{"action", "modify"}, {"args", {{"command", o.rewrite}}}}), 0};
        case Decision::ask:
            if (o.hermes_approve) {
                json answer = {{"action", "approve"},
                               {"message", message},
                               {"rule_key", "toolcage:" + o.verdict.rule}};
                // The command to run once approved: inside the cage (the plugin applies it;
                // Hermes itself ignores the key).
                if (!o.rewrite.empty() && o.rewrite != call.command)
                    answer["args"] = {{"command", o.rewrite}};
                return {dump_line(answer), 0};
            }
            return {dump_line({{"action", "block"},
                               {"message", message +
                                               " (a person must approve this call; this policy "
                                               "has hermes_approve off, so it is refused)"}}),
                    kBlockExit};
        case Decision::deny:
            break;
    }
    return {dump_line({{"action", "block"}, {"message", message}}), kBlockExit};
}

}  // namespace toolcage::hook
