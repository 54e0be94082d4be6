// A home, a workspace (a git working tree) and a Hermes profile in a temp directory, and the
// built toolcage binary run as an agent would run `toolcage hook`.
#pragma once

#include <pwd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "run_binary.h"
#include "tests/other_user.h"

namespace toolcage::test {

// A decision log of the test's own: $TOOLCAGE_LOG counts only under toolcage's state directory
// (the suite's own under CTest, common/user_home.h), so the test's log lives there, named after
// its scratch directory, and goes with the fixture.
inline std::string test_log_path(const std::string& scratch) {
    std::string name = scratch.substr(scratch.rfind('/') + 1);
    return testsupport::state_dir_for(::geteuid()) + "/test-logs/" + name + ".jsonl";
}

struct HookFixture {
    TempDir root{TOOLCAGE_HOOK_TEST_DIR};
    std::string home = root / "home";
    std::string ws = root / "ws";
    std::string hermes_home = home + "/.hermes";
    std::string log = test_log_path(root.path());
    std::map<std::string, std::string> env;

    HookFixture() {
        make_dirs(ws + "/.git");
        make_dirs(hermes_home);
        env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", home}, {"TOOLCAGE_LOG", log}};
    }
    ~HookFixture() { ::unlink(log.c_str()); }

    RunResult hook(const std::string& payload, const std::vector<std::string>& args = {}) const {
        std::vector<std::string> a = {"hook"};
        a.insert(a.end(), args.begin(), args.end());
        return run_binary(TOOLCAGE_BIN, a, payload, env);
    }
    RunResult hook(const nlohmann::json& payload, const std::vector<std::string>& args = {}) const {
        return hook(payload.dump(), args);
    }

    // A policy file that asks for `echo ask-me` (and otherwise is the default).
    std::string ask_policy(bool hermes_approve) const {
        std::string file = root / (hermes_approve ? "ask-approve.json" : "ask-no-approve.json");
        nlohmann::json p = {{"name", hermes_approve ? "ask-approve" : "ask-no-approve"},
                            {"extends", "default"},
                            {"hermes_approve", hermes_approve},
                            {"rules",
                             {{{"id", "test.ask-me"},
                               {"program", "echo"},
                               {"args", {"ask-me"}},
                               {"verdict", "ask"},
                               {"reason", "the test asks a person"}}}}};
        write_file(file, p.dump(2));
        return file;
    }
};

// Hermes's pre_tool_call payload, shaped as agent/shell_hooks.py writes it.
inline nlohmann::json hermes_payload(const std::string& tool, const nlohmann::json& input,
                                     const std::string& cwd, const std::string& profile = "default") {
    return {{"hook_event_name", "pre_tool_call"},
            {"tool_name", tool},
            {"tool_input", input},
            {"session_id", "20260101_120000_abcdef"},
            {"cwd", cwd},
            {"profile", profile},
            {"extra", {{"task_id", "default"}, {"tool_call_id", "call_1"}, {"turn_id", "t1"}}}};
}

inline nlohmann::json hermes_terminal(const std::string& command, const std::string& cwd,
                                      const std::string& workdir = "") {
    nlohmann::json input = {{"command", command}, {"background", false}, {"timeout", 180}, {"pty", false}};
    if (!workdir.empty()) input["workdir"] = workdir;
    return hermes_payload("terminal", input, cwd);
}

// Claude Code's PreToolUse payload.
inline nlohmann::json claude_payload(const std::string& tool, const nlohmann::json& input,
                                     const std::string& cwd) {
    return {{"session_id", "0b7e2c1a-3f4d-4c2e-9a51-6f0d8e7c1b2a"},
            {"transcript_path", "/tmp/transcript.jsonl"},
            {"cwd", cwd},
            {"permission_mode", "default"},
            {"hook_event_name", "PreToolUse"},
            {"tool_name", tool},
            {"tool_input", input},
            {"tool_use_id", "toolu_01ABC"}};
}

inline nlohmann::json claude_bash(const std::string& command, const std::string& cwd) {
    return claude_payload("Bash",
                          {{"command", command},
                           {"description", "Run a command"},
                           {"timeout", 120000},
                           {"run_in_background", false}},
                          cwd);
}

// What plugins/openclaw/index.js writes to the hook.
inline nlohmann::json openclaw_payload(const std::string& tool, const nlohmann::json& params,
                                       const std::string& workspace) {
    return {{"toolName", tool},
            {"params", params},
            {"agentId", "main"},
            {"sessionId", "sess-1"},
            {"workspaceDir", workspace}};
}

inline nlohmann::json parse_out(const RunResult& r) {
    return nlohmann::json::parse(r.out, nullptr, false);
}

// A rewrite with its fresh step id (`--step-id` and 16 of 0-9 a-f) written as `--step-id ID`,
// to compare with the expected text; any other id is left as it is, and so fails.
inline std::string with_step_id_as_id(std::string rw) {
    static const std::regex id(" --step-id [0-9a-f]{16} ");
    return std::regex_replace(rw, id, " --step-id ID ");
}

}  // namespace toolcage::test
