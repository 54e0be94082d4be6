// Small text helpers the configuration readers share (git, npm, the relay's settings, the
// refusal reports): ASCII lowercase and trimming of blanks.
#pragma once

#include <string>
#include <string_view>

namespace toolcage {

// `s` with ASCII letters lowercased.
std::string lower(std::string_view s);

// `s` without leading and trailing spaces, tabs, CR and LF.
std::string trim(std::string_view s);

}  // namespace toolcage
