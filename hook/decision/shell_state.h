// The agent's shell state around a rewritten command. Claude Code and Hermes keep one shell
// whose cwd (and exports) last between calls: a leading `cd DIR &&` must still move that shell
// when the rest runs in a cage, and a command of shell builtins alone needs no cage at all.
#pragma once

#include <optional>
#include <string>

namespace toolcage::hook {

// True when every command in `command` is a builtin that changes nothing outside the shell (cd,
// pwd, echo, export, test, ...) with no redirection but to /dev/null and no substitution that
// runs code: it may run as sent.
bool only_shell_state(const std::string& command);

// A command split at its leading shell-state builtins: `outside` runs in the agent's shell
// (byte for byte as sent), `inside` in the cage: the rest, after the builtins whose effect a
// child shell needs too (export, set, umask, ...), replayed.
struct ShellStateSplit {
    std::string outside;  // e.g. "cd sub && export A=1"
    std::string inside;   // e.g. "export A=1 && make"
};

// nullopt unless the command starts with one or more plain builtins (cd, pushd, popd, export,
// unset, set, shopt, umask) with literal arguments, joined by && to a rest that is not empty.
std::optional<ShellStateSplit> split_shell_state(const std::string& command);

}  // namespace toolcage::hook
