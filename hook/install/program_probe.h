// Asking an installed agent program what it is: where it is on PATH, its version as X.Y.Z, and
// its output when run with a time limit. Used by `install` and `doctor` to say what each agent
// version enforces.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::install {

struct ProgramVersion {
    int major = 0, minor = 0, patch = 0;
    std::string text;  // as the program states it: "0.20.3"
    bool at_least(int ma, int mi, int pa) const;
};

// "0.20.3" (an optional leading v, anything after the third number ignored); nullopt otherwise.
std::optional<ProgramVersion> parse_version(std::string_view s);

// The first executable regular file NAME in $PATH's directories; "" when there is none.
std::string find_on_path(const std::string& name);

// Runs argv (stdin and stderr /dev/null, its own process group) with a time limit; its stdout
// (at most 64 KiB), or nullopt when it fails, exits non-zero or runs too long.
std::optional<std::string> run_for_output(const std::vector<std::string>& argv, int seconds);

}  // namespace toolcage::install
