// The agent's shell around a rewritten command. Claude Code and Hermes keep one shell whose cwd
// lasts between calls: a leading `cd DIR &&` still moves that shell, in toolcage's own words.
// Nothing else of the command runs there: builtins that evaluate (subscripts, arithmetic, traps,
// PS4, aliases, exports the next call inherits) run inside the cage with the rest.
#pragma once

#include <optional>
#include <string>

namespace toolcage::hook {

// The text toolcage runs in the agent's shell for a command made only of directory moves (`cd
// DIR`, `pushd DIR`, `popd`, joined by &&, every argument a plain literal): `builtin cd './DIR'`
// and so on, whatever functions, aliases or CDPATH that shell has. nullopt for anything else.
std::optional<std::string> only_moves(const std::string& command);

// A command split at its leading directory moves: `outside` is toolcage's text for them (as
// only_moves writes it), `inside` the rest, byte for byte, for the cage.
struct ShellStateSplit {
    std::string outside;  // e.g. "builtin cd './sub'"
    std::string inside;   // e.g. "make"
};

// nullopt unless the command starts with one or more moves joined by && to a rest that is not
// empty.
std::optional<ShellStateSplit> split_shell_state(const std::string& command);

// The directory the agent's shell is in once the leading moves of `command` have run, from
// `cwd` (absolute), as bash's cd computes it by default (logically: `..` takes off the last name
// written, not the link's target's parent): where the step in the cage starts, and so where its
// workspace is chosen. `cwd` when there is no move; nullopt when a move cannot be followed from
// here (popd reads the shell's stack).
std::optional<std::string> cwd_after_moves(const std::string& command, const std::string& cwd);

// True when `text` is exactly what only_moves() writes (for its own output, byte for byte).
bool is_moves_text(const std::string& text);

}  // namespace toolcage::hook
