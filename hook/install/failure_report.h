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

// The agents whose configuration (under the user database's home, and Claude Code's project
// settings under `workdir`) runs toolcage's hook. Nothing is changed; Claude Code's version is
// asked of the `claude` on PATH.
std::vector<AgentFailureReport> agent_failure_reports(const std::string& workdir);

}  // namespace toolcage::install
