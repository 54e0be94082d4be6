// The programs a logged shell command runs, for `toolcage log --stats`: as the hook's classifier
// reads it (the shell parser, then wrappers, `sh -c` and code piped into a shell unwrapped), so
// that `do`, `fi` and a heredoc's lines are not programs and `sudo -u bob ls` runs sudo and ls.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::cli {

// Each program once, by its base name, sorted; "(not parsed)" for a command the shell parser
// refuses, and "(run-time name)" for one whose name is known only when it runs (`$CC -o x`).
std::vector<std::string> log_programs(std::string_view command);

}  // namespace toolcage::cli
