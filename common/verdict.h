// The four answers toolcage gives about a tool call, and the verdict that carries one.
// Ordered by severity so that combining verdicts is a max().
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage {

enum class Decision { allow = 0, cage = 1, ask = 2, deny = 3 };

std::string_view to_string(Decision d);
std::optional<Decision> decision_from_string(std::string_view s);

struct Verdict {
    Decision decision = Decision::deny;
    std::string rule;    // stable id, e.g. "git.reset-hard"
    std::string reason;  // one line a person understands
};

// The more severe of two verdicts; on a tie the first one stands.
inline const Verdict& more_severe(const Verdict& a, const Verdict& b) {
    return static_cast<int>(b.decision) > static_cast<int>(a.decision) ? b : a;
}

}  // namespace toolcage
