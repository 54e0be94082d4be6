// Bounds on the hook's reading of what the agent sends (the command, its payload): past one the
// analysis stops and the call is refused (input.too-complex), never allowed or caged half-read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/verdict.h"

namespace toolcage::budget {

// The rule every bound below reports under. Fixed: no policy can lower it.
inline constexpr std::string_view kRule = "input.too-complex";

// One expanded word or one variable's value (x=$x$x doubles it each time).
inline constexpr std::size_t kMaxValueBytes = 64 * 1024;
// Every word, value and output text the classifier works out for one call, summed: a function
// called many times or a loop of expansions cannot make the work grow past the text's size.
inline constexpr std::size_t kMaxProducedBytes = 8 * 1024 * 1024;
// The directories the self-protection check reads each word against (cd a; cd b; … doubles
// them: `cd a; cd b` may leave the shell in a, b, a/b).
inline constexpr std::size_t kMaxBases = 256;
// Words times directories the self-protection check resolves.
inline constexpr std::size_t kMaxPathChecks = 32 * 1024;
// Nesting of arrays and objects in a tool call's JSON: the parser recurses once a level.
inline constexpr std::size_t kMaxJsonDepth = 256;
// Steps of working out what interpreter code's names hold (a = b + b; b = c + c; …), each
// lookup counted by the tokens it reads.
inline constexpr std::size_t kMaxCodeSteps = 16 * 1024 * 1024;
// A value a pattern is matched against (${x#*/}, ${x%%.*}): each match tries every prefix.
inline constexpr std::size_t kMaxPatternSubject = 4 * 1024;

// Thrown where a bound is reached; caught where the analysis starts, which answers refusal().
struct Exceeded {
    std::string what;  // "a variable's value would pass 65536 bytes"
};

// deny, kRule, and a reason naming the bound and the way out.
Verdict refusal(std::string_view what);

// [[noreturn]] shorthand for the checks: throws Exceeded{what}.
[[noreturn]] void exceeded(std::string what);

// The first byte at which the JSON text's arrays and objects nest deeper than `limit`, brackets
// inside strings not counted; npos when they never do. One pass, no recursion: it runs before
// the parser, which would recurse once a level.
std::size_t json_too_deep_at(std::string_view text, std::size_t limit = kMaxJsonDepth);

}  // namespace toolcage::budget
