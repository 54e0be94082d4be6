// The three agents' wire formats: each adapter reads its agent's payload into a ToolCall and
// writes the answer that agent understands. Nothing here decides anything.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/verdict.h"
#include "hook/adapters/payload.h"
#include "hook/call/outcome.h"
#include "hook/call/tool_call.h"

namespace toolcage::hook {

// What the process knows that the payload does not.
struct HookEnv {
    std::string hermes_home;  // $HERMES_HOME (the profile's directory, set by Hermes)
    std::string home;         // $HOME
    std::string process_cwd;  // the hook process's working directory
    std::string claude_project_dir;  // $CLAUDE_PROJECT_DIR (set by Claude Code for hooks)
    std::string terminal_cwd;        // $TERMINAL_CWD (Hermes's terminal directory, when set)
};

HookEnv env_from_process();

// What the hook process prints and how it exits.
struct Answer {
    std::string out;  // stdout (one JSON document and a newline, or nothing)
    int exit_code = 0;
};

// The agent, from the payload's shape: Hermes sends hook_event_name "pre_tool_call", Claude
// Code "PreToolUse", the OpenClaw plugin toolName + params. nullopt when it is none of them.
std::optional<Agent> detect_agent(const nlohmann::json& payload);

// Each parse_* throws PayloadError naming the missing or mistyped field.
ToolCall parse_hermes(const nlohmann::json& payload, const HookEnv& env);
ToolCall parse_claude(const nlohmann::json& payload, const HookEnv& env);
ToolCall parse_openclaw(const nlohmann::json& payload, const HookEnv& env);

Answer answer_hermes(const ToolCall& call, const Outcome& o);
Answer answer_claude(const ToolCall& call, const Outcome& o);
Answer answer_openclaw(const ToolCall& call, const Outcome& o);

// The refusal written when the hook itself fails (bad payload, unreadable policy, ...):
// exit 2 always; stdout carries a block for agents that read it. `agent` is nullopt when the
// payload never said who sent it; then the Hermes block is written, which the others ignore.
Answer failure_answer(std::optional<Agent> agent, const std::string& reason);

// "toolcage: <rule>: <reason>", the one line an agent and its user see.
std::string verdict_message(const Verdict& v);

}  // namespace toolcage::hook
