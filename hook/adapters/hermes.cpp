// Hermes Agent's shell hooks (config.yaml `hooks: pre_tool_call:`). Hermes pipes
// {hook_event_name, tool_name, tool_input, session_id, cwd, profile, extra} to the hook and reads
// back {} (go on), {"action":"modify","args":{…}} (merged into the tool's args),
// {"action":"approve","message":…} (ask a person) or {"action":"block","message":…}.
// Exit code 2 blocks even without JSON; a block is written with both, since a Hermes without
// exit-2 support still reads the JSON, and one without fail_closed still honours exit 2.
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/policy_loader.h"
#include "common/sha256.h"
#include "hook/adapters/adapters.h"
#include "hook/adapters/hermes_patch.h"
#include "hook/call/paths.h"

namespace toolcage::hook {

using nlohmann::json;

namespace {

constexpr int kBlockExit = 2;

// Hermes's tools (0.19.0, 0.20.x) that run code or write outside any cage toolcage can apply,
// sorted by name. `only_with`: the tool does so only when one of these input fields is
// non-empty.
struct BeyondCage {
    std::string_view tool, why;
    std::initializer_list<const char*> only_with;
};
const BeyondCage kBeyondCage[] = {
    {"browser_cdp", "sends raw DevTools commands to the browser (they run script in its pages)", {}},
    {"browser_console", "reads and evaluates in the browser's console", {}},
    {"browser_exec", "runs JavaScript in the browser's page", {}},
    {"computer_use", "types and clicks into any program on the desktop", {}},
    {"cronjob", "schedules a script or a monitor that runs outside any turn, outside the cage",
     {"script", "monitor_script", "monitor_url"}},
    {"setup_mcp", "registers a program Hermes starts as an MCP server, outside the cage", {}},
};

const BeyondCage* beyond_cage(std::string_view tool) {
    for (const auto& b : kBeyondCage)
        if (b.tool == tool) return &b;
    return nullptr;
}

// Every field each tool toolcage judges takes, in 0.19.0 and 0.20.3 (the tools' schemas). A
// field outside these is one toolcage cannot judge (a later Hermes's new way to run something):
// the call is refused, naming it.
struct Fields {
    std::string_view tool;
    std::initializer_list<std::string_view> known;
};
const Fields kFields[] = {
    {"terminal", {"command", "background", "timeout", "workdir", "pty", "notify_on_complete", "watch_patterns"}},
    {"execute_code", {"code"}},
    {"memory", {"action", "target", "content", "old_text", "new_text", "operations"}},
    {"write_file", {"path", "content", "cross_profile"}},
    {"patch", {"mode", "path", "old_string", "new_string", "replace_all", "patch", "cross_profile"}},
    {"read_file", {"path", "offset", "limit"}},
    {"search_files", {"pattern", "target", "path", "file_glob", "limit", "offset", "output_mode", "context"}},
    {"cronjob",
     {"action", "job_id", "prompt", "schedule", "name", "repeat", "deliver", "skills", "model", "script",
      "monitor_script", "monitor_url", "no_agent", "context_from", "continuity", "enabled_toolsets", "workdir",
      "attach_to_session"}},
};

// The first field of `input` that `tool` does not take; empty when all are known (or the tool
// is not one whose fields toolcage judges).
std::string unknown_field(std::string_view tool, const json& input) {
    for (const auto& f : kFields) {
        if (f.tool != tool) continue;
        for (auto it = input.begin(); it != input.end(); ++it)
            if (std::ranges::find(f.known, std::string_view(it.key())) == f.known.end()) return it.key();
    }
    return {};
}

// The profile's directory: Hermes runs the hook with that profile's HERMES_HOME; without it,
// the layout Hermes uses by default (~/.hermes, ~/.hermes/profiles/<name>).
std::string hermes_profile_dir(const HookEnv& env, const std::string& profile) {
    if (!env.hermes_home.empty()) return absolute_path(env.hermes_home, env.process_cwd, env.home);
    if (env.home.empty()) return {};
    if (profile.empty() || profile == "default") return env.home + "/.hermes";
    return env.home + "/.hermes/profiles/" + profile;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : "\n") + x;
    return out;
}

// The memory tool's entry as a person approves it: each operation (the single one, or a
// batch's) with its action, the text naming the entry it changes and the text it writes, one
// per line.
std::string memory_entry(const json& input, const std::string& where) {
    auto text = [](const json& o, const char* k) {
        auto it = o.find(k);
        if (it == o.end() || it->is_null()) return std::string();
        return it->is_string() ? it->get<std::string>() : it->dump(-1, ' ', false, json::error_handler_t::replace);
    };
    auto one = [&](const json& op) {
        std::string content = text(op, "content");
        if (content.empty()) content = text(op, "new_text");  // Hermes 0.20's alias
        std::string line = (text(op, "action").empty() ? "?" : text(op, "action"));
        if (!text(op, "old_text").empty()) line += " (the entry holding \"" + text(op, "old_text") + "\")";
        if (!content.empty()) line += ": " + content;
        return line;
    };
    auto ops = input.find("operations");
    if (ops == input.end() || ops->is_null() || (ops->is_array() && ops->empty())) return one(input);
    if (!ops->is_array())
        throw PayloadError("payload " + where + "/operations: not an array of {action, content, old_text}");
    std::string out;
    for (const auto& op : *ops) {
        if (!op.is_object())
            throw PayloadError("payload " + where + "/operations: an operation that is not an object");
        out += (out.empty() ? "" : "\n") + one(op);
    }
    return out;
}

// A call that writes to a channel of Hermes's (common/hermes_channels.h): `entry` is what is
// approved, digested into the approval's key.
void as_persist(ToolCall& c, std::string_view channel, std::string entry) {
    c.kind = ToolKind::persist;
    c.channel = std::string(channel);
    c.approves = std::move(entry);
}

void parse_tool(ToolCall& c, const json& input, const std::string& cwd, const HookEnv& env) {
    const std::string where = "/tool_input";
    c.cwd = cwd;
    if (std::string field = unknown_field(c.tool, input); !field.empty()) {
        c.kind = ToolKind::malformed;
        c.why = "the " + c.tool + " call has a field toolcage does not know, \"" + field +
                "\" (a newer Hermes?), so toolcage cannot judge what it does";
        return;
    }
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
        c.approves = "in " + c.cwd + ": " + c.command;
    } else if (c.tool == "execute_code") {
        c.kind = ToolKind::execute_code;
        c.code = require_string(input, where, "code");
        c.approves = c.code;
    } else if (c.tool == "write_file") {
        c.kind = ToolKind::write_file;
        c.paths.push_back(require_string(input, where, "path"));
    } else if (c.tool == "patch") {
        c.kind = ToolKind::write_file;
        std::string mode = optional_string(input, where, "mode");
        if (mode.empty() || mode == "replace") {
            c.paths.push_back(require_string(input, where, "path"));
        } else if (mode == "patch") {
            HermesPatch p = hermes_patch_targets(require_string(input, where, "patch"));
            if (!p.error.empty()) {
                c.kind = ToolKind::malformed;
                c.why = "the patch holds " + p.error + "; toolcage refuses the whole patch";
                return;
            }
            c.paths = std::move(p.targets);
            if (c.paths.empty())
                throw PayloadError("payload /tool_input/patch: names no file (expected \"*** Add File:\", "
                                   "\"*** Update File:\", \"*** Delete File:\" or \"*** Move File: A -> B\" lines)");
        } else {
            throw PayloadError("payload /tool_input/mode: \"" + mode +
                               "\" is neither \"replace\" nor \"patch\"");
        }
    } else if (c.tool == "read_file") {
        c.kind = ToolKind::read_file;
        c.paths.push_back(require_string(input, where, "path"));
    } else if (c.tool == "search_files") {
        c.kind = ToolKind::read_file;
        std::string path = optional_string(input, where, "path");
        c.paths.push_back(path.empty() ? "." : path);
        // A search of file names lists names; one of contents reads every file in the tree.
        c.recursive = optional_string(input, where, "target") != "files";
    } else if (c.tool == "memory") {
        // Hermes keeps target "user" apart (USER.md); anything else is its memory (null or
        // absent is its default, another name it refuses).
        std::string target = optional_string(input, where, "target");
        as_persist(c, target == "user" ? "user_profile" : "memory", memory_entry(input, where));
    } else if (c.tool == "skill_manage") {
        as_persist(c, "skills", input.dump(-1, ' ', false, json::error_handler_t::replace));
    } else if (c.tool == "cronjob" && std::ranges::none_of(beyond_cage("cronjob")->only_with, [&](const char* f) {
                   return !optional_string(input, where, f).empty();
               })) {
        // A job without a script: its prompt (with its skills and context) runs later as a
        // session of its own. Listing, pausing, running or removing a job writes nothing new.
        std::string action = optional_string(input, where, "action");
        std::ranges::transform(action, action.begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (action.find("create") != std::string::npos || action.find("update") != std::string::npos)
            as_persist(c, "cron_prompts", input.dump(-1, ' ', false, json::error_handler_t::replace));
        else
            c.kind = ToolKind::inert;
    } else if (const BeyondCage* b = beyond_cage(c.tool)) {
        std::string what;
        for (const char* f : b->only_with) {
            std::string v = optional_string(input, where, f);
            if (!v.empty()) what += (what.empty() ? "" : "\n") + std::string(f) + ": " + v;
        }
        if (b->only_with.size() == 0 || !what.empty()) {
            c.kind = ToolKind::beyond_cage;
            c.why = std::string(b->why);
            c.approves = what.empty() ? input.dump(-1, ' ', false, json::error_handler_t::replace) : what;
        } else {
            c.kind = ToolKind::inert;
        }
    } else {
        c.kind = ToolKind::other;
        c.approves = input.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    if (c.approves.empty() && !c.paths.empty()) {
        std::vector<std::string> abs;
        for (const auto& p : c.paths) abs.push_back(absolute_path(p, c.cwd, env.home));
        c.approves = joined(abs);
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
    // Hermes loads every plugin directory and keys plugins by their declared name (a later
    // `name: toolcage` replaces toolcage's): no call writes anywhere under plugins/.
    if (!c.profile_dir.empty()) c.protected_extra.push_back(c.profile_dir + "/plugins");
    if (!env.home.empty()) c.protected_extra.push_back(env.home + "/.hermes/plugins");
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
                // The key carries the tool and a digest of exactly what is approved, so that a
                // person's "session" or "always" covers this command, file or script and no other;
                // the question shows it.
                // A write to a channel of Hermes's carries its entry (the decision's `approves`).
                const std::string& approves = o.approves.empty() ? call.approves : o.approves;
                std::string shown = approves.size() > 2000 ? approves.substr(0, 2000) + "…" : approves;
                // A person approves the command, not the label of the step that runs it: the
                // same call, rewritten afresh, keeps its key (the step's id written as "-").
                std::string covered = approves;
                if (!o.step_id.empty())
                    if (auto at = covered.find(" --step-id " + o.step_id + " "); at != std::string::npos)
                        covered.replace(at + 11, o.step_id.size(), "-");
                json answer = {{"action", "approve"},
                               {"message", message + (shown.empty() ? "" : "\nApproving " + call.tool + ": " + shown)},
                               {"rule_key", "toolcage:" + o.verdict.rule + ":" + call.tool + ":" +
                                                sha256_hex(call.tool + "\n" + covered).substr(0, 32)}};
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
