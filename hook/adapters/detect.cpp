// Who sent the payload, from its shape alone, and what the process knows beside it.
#include <unistd.h>

#include <cstdlib>

#include "hook/adapters/adapters.h"

namespace toolcage::hook {

using nlohmann::json;

std::optional<Agent> detect_agent(const json& payload) {
    if (!payload.is_object()) return std::nullopt;
    auto event = payload.find("hook_event_name");
    if (event != payload.end() && event->is_string()) {
        // Both agents name the event; the names differ in case and in spelling.
        if (*event == "pre_tool_call" || *event == "post_tool_call") return Agent::hermes;
        if (*event == "PreToolUse" || *event == "PostToolUse") return Agent::claude;
        return std::nullopt;
    }
    if (payload.contains("toolName") && payload.contains("params")) return Agent::openclaw;
    return std::nullopt;
}

namespace {

std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

}  // namespace

HookEnv env_from_process() {
    HookEnv env;
    env.hermes_home = env_or_empty("HERMES_HOME");
    env.home = env_or_empty("HOME");
    env.claude_project_dir = env_or_empty("CLAUDE_PROJECT_DIR");
    env.terminal_cwd = env_or_empty("TERMINAL_CWD");
    char buf[4096];
    if (getcwd(buf, sizeof buf)) env.process_cwd = buf;
    if (env.process_cwd.empty()) env.process_cwd = "/";
    return env;
}

}  // namespace toolcage::hook
