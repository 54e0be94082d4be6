#include "common/host_pattern.h"

#include <vector>

#include "common/glob_product.h"

namespace toolcage {
namespace {

enum class Kind { literal, in_label, any };

struct Token {
    Kind kind;
    char c = 0;
};

std::vector<Token> tokens(std::string_view pattern) {
    std::vector<Token> out;
    for (std::size_t i = 0; i < pattern.size();) {
        if (pattern[i] != '*') {
            char c = pattern[i++];
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            out.push_back({Kind::literal, c});
            continue;
        }
        std::size_t run = 0;
        while (i < pattern.size() && pattern[i] == '*') ++i, ++run;
        out.push_back({run >= 2 ? Kind::any : Kind::in_label});
    }
    return out;
}

bool is_star(const Token& t) { return t.kind != Kind::literal; }

// Whether one character can be consumed by both tokens.
bool share_a_character(const Token& a, const Token& b) {
    if (a.kind == Kind::literal && b.kind == Kind::literal) return a.c == b.c;
    if (a.kind == Kind::literal) return b.kind == Kind::any || a.c != '.';
    if (b.kind == Kind::literal) return a.kind == Kind::any || b.c != '.';
    return true;  // two stars share any character but '.', which a letter is
}

}  // namespace

std::string relay_host_pattern(const AllowEntry& entry) {
    return entry.wildcard ? "**." + entry.host : entry.host;
}

bool host_patterns_overlap(std::string_view a_text, std::string_view b_text) {
    const std::vector<Token> a = tokens(a_text), b = tokens(b_text);
    return globs_meet(
        a.size(), b.size(), [&](std::size_t i) { return is_star(a[i]); },
        [&](std::size_t j) { return is_star(b[j]); },
        [&](std::size_t i, std::size_t j) { return share_a_character(a[i], b[j]); });
}

bool host_pattern_covers(std::string_view wide, std::string_view narrow) {
    if (wide == narrow) return true;
    if (narrow.find('*') == std::string_view::npos) return host_patterns_overlap(wide, narrow);
    if (!wide.starts_with("**.") || wide.find('*', 2) != std::string_view::npos) return false;
    // `**.suffix` covers any pattern whose literal tail ends in ".suffix".
    std::string_view suffix = wide.substr(2);  // ".suffix"
    std::string_view tail = narrow.substr(narrow.rfind('*') + 1);
    return tail.size() >= suffix.size() && tail.ends_with(suffix);
}

}  // namespace toolcage
