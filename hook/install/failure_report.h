// For `toolcage doctor`: per agent toolcage is installed into, whether a call still blocks when
// the hook is dead (cannot start, crashes, killed) or slow (past the agent's wait).
#pragma once

#include <string>
#include <vector>

namespace toolcage::install {

struct AgentFailureReport {
    std::string agent;   // "claude", "hermes", "openclaw"
    std::string where;   // the file or directory that installs the hook
    bool blocks = false; // a dead or slow hook blocks the call
    std::string detail;  // why, and the fix when it does not
};

// One agent's configuration that runs toolcage's hook, found without running anything.
struct InstalledAgent {
    std::string agent;  // "claude", "hermes", "openclaw"
    std::string where;  // Claude Code's settings file, the Hermes profile's directory, openclaw.json
};

// Claude Code's user and project settings (under `workdir`), every Hermes profile (~/.hermes and
// ~/.hermes/profiles/*) with toolcage's plugin, and OpenClaw's config with toolcage's plugin.
std::vector<InstalledAgent> installed_agents(const std::string& workdir);

// The agents whose configuration (under the user database's home, and Claude Code's project
// settings under `workdir`) runs toolcage's hook. Nothing is changed; Claude Code's version is
// asked of the `claude` on PATH.
std::vector<AgentFailureReport> agent_failure_reports(const std::string& workdir);

}  // namespace toolcage::install
