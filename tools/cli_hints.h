// Help for the usual slips on the command line: a mistyped subcommand or option gets the
// nearest real one ("did you mean check?"), a command given to `run` without `--` gets the fix.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::cli {

// Edit distance (insertions, deletions, substitutions, swaps of neighbours), for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is near enough to be a slip (at most 2 edits, and
// fewer than half the word), else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// After CLI11 refused argv: one line that says how to fix it, or "" when there is nothing to add.
std::string slip_hint(CLI::App& app, const std::vector<std::string>& args);

// The words that name a (sub)command as typed: "toolcage install claude". Every message a
// subcommand prints starts with them.
std::string command_words(const CLI::App& leaf);
// The same for the deepest subcommand the command line chose ("toolcage" when none).
std::string parsed_command_words(const CLI::App& app);

// The version line every binary and subcommand prints for --version.
inline constexpr const char* kVersion = TOOLCAGE_VERSION;

}  // namespace toolcage::cli
