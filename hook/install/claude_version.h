// Which Claude Code is installed, and whether it blocks a call when its hook fails: Claude Code
// 2.1.295 and later honour "onFailure": "block" on a hook entry (a hook that cannot start, times
// out or exits with anything but 0 or 2 blocks the call); before, such a hook lets it run.
#pragma once

#include <optional>
#include <string>

#include "hook/install/program_probe.h"

namespace toolcage::install {

struct DetectedClaude {
    std::optional<ProgramVersion> version;
    std::string source;  // how it was found, or why it was not
};

// `given` (--claude-version) when not empty; else the `claude` on PATH: its package.json (an npm
// install), the version directory it links to (the native installer), else `claude --version`.
DetectedClaude detect_claude(const std::string& given);

// Whether this Claude Code blocks a call whose hook failed, given "onFailure": "block".
bool blocks_on_hook_failure(const DetectedClaude& d);

// One line for the user: what a dead, hanging or crashing hook does in this Claude Code.
std::string hook_failure_report(const DetectedClaude& d);

}  // namespace toolcage::install
