// One tool call as toolcage sees it, whatever agent sent it. Each adapter turns its agent's
// JSON into a ToolCall; the decision reads only this; the adapter writes the answer from it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::hook {

enum class Agent { hermes, claude, openclaw };

std::string_view to_string(Agent a);
std::optional<Agent> agent_from_string(std::string_view s);

// What the tool does, as far as toolcage cares.
enum class ToolKind {
    shell,         // runs `command` with bash in `cwd`
    write_file,    // writes every file in `paths`
    execute_code,  // runs the Python in `code`
    read_file,     // reads every file or tree in `paths` (the agent's own file tools)
    beyond_cage,   // acts where no cage of toolcage's reaches (the browser, the desktop,
                   // the agent's own skills and schedules): a person decides; `why` says how
    malformed,     // a known tool with a field toolcage does not know: refused, `why` names it
    inert,         // a known tool that, called so, neither runs code nor writes (a cron job
                   // listed, paused or removed)
    persist,       // writes what the agent finds in a later session's prompt (memory, a skill, a
                   // cron job's prompt): `channel` names which, `approves` holds the entry
    other,         // anything else: the policy decides (Hermes: hermes.other_tools)
};

struct ToolCall {
    Agent agent = Agent::hermes;
    std::string tool;          // the tool's name as the agent wrote it ("terminal", "Bash", "exec")
    ToolKind kind = ToolKind::other;
    std::string command;       // shell: the command string, exactly as sent
    std::string cwd;           // absolute: where the command runs and relative paths resolve
    std::vector<std::string> paths;  // write_file, read_file: every target, as sent (maybe
                                     // relative or ~); read_file: recursive when `recursive`
    bool recursive = false;          // read_file: a search through a whole tree
    std::string code;          // execute_code: the program
    std::string why;           // beyond_cage: what the tool does outside the cage; malformed: why
    std::string channel;       // Hermes: the channel a write reaches later sessions by
                               // (common/hermes_channels.h); empty for none
    std::string approves;      // what a person's approval covers (command, target, script),
                               // shown in the question and digested into its key
    std::string session;       // the agent's session id, for the audit log
    std::string profile;       // Hermes profile name, OpenClaw agent id; empty for Claude Code
    std::string profile_dir;   // where the profile's SOUL.md lives (HERMES_HOME, OpenClaw
                               // workspace); empty when the agent has none
    std::vector<std::string> protected_extra;  // the agent's own files no call may write
                                               // (settings, plugin), absolute
    nlohmann::json input;      // the tool's input object as received (for rewriting it)
};

}  // namespace toolcage::hook
