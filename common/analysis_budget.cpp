#include "common/analysis_budget.h"

namespace toolcage::budget {

Verdict refusal(std::string_view what) {
    return {Decision::deny, std::string(kRule),
            "the command is too complex to judge: " + std::string(what) +
                " (a limit of the hook's analysis); split the command, or run it with toolcage run"};
}

void exceeded(std::string what) { throw Exceeded{std::move(what)}; }

std::size_t json_too_deep_at(std::string_view text, std::size_t limit) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;  // the escaped character, a quote included
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string_view::npos;
}

}  // namespace toolcage::budget
