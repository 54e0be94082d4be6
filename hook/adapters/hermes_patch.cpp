#include "hook/adapters/hermes_patch.h"

#include <optional>

namespace toolcage::hook {

namespace {

// The length of the whitespace character at the front of `s` as Python's str.isspace() (and so
// re's \s) sees it, in UTF-8; 0 when it is none.
size_t space_at(std::string_view s) {
    if (s.empty()) return 0;
    unsigned char c = static_cast<unsigned char>(s[0]);
    if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)) return 1;
    auto is = [&](std::string_view seq) { return s.starts_with(seq) ? seq.size() : 0; };
    // U+0085, U+00A0
    if (size_t n = is("\xC2\x85") + is("\xC2\xA0")) return n;
    // U+1680
    if (size_t n = is("\xE1\x9A\x80")) return n;
    // U+2000..U+200A, U+2028, U+2029, U+202F, U+205F
    if (s.size() >= 3 && c == 0xE2) {
        unsigned char b1 = static_cast<unsigned char>(s[1]), b2 = static_cast<unsigned char>(s[2]);
        if (b1 == 0x80 && ((b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF)) return 3;
        if (b1 == 0x81 && b2 == 0x9F) return 3;
    }
    // U+3000
    return is("\xE3\x80\x80");
}

std::string_view skip_spaces(std::string_view s) {
    while (size_t n = space_at(s)) s.remove_prefix(n);
    return s;
}

// Python's str.strip(): whitespace off both ends.
std::string_view strip(std::string_view s) {
    s = skip_spaces(s);
    // From the back: try each possible character length ending at the end.
    for (bool again = true; again && !s.empty();) {
        again = false;
        for (size_t len = 1; len <= 3 && len <= s.size(); ++len)
            if (space_at(s.substr(s.size() - len)) == len) {
                s.remove_suffix(len);
                again = true;
                break;
            }
    }
    return s;
}

// `\s*WORD` (or `\s*WORD\s+` when `then_space`); the rest, or nullopt.
std::optional<std::string_view> word(std::string_view s, std::string_view w, bool then_space) {
    s = skip_spaces(s);
    if (!s.starts_with(w)) return std::nullopt;
    s.remove_prefix(w.size());
    if (then_space) {
        if (!space_at(s)) return std::nullopt;
        s = skip_spaces(s);
    }
    return s;
}

}  // namespace

HermesPatch hermes_patch_targets(std::string_view patch) {
    HermesPatch out;
    size_t pos = 0;
    while (pos <= patch.size() && out.error.empty()) {
        size_t end = patch.find('\n', pos);
        if (end == std::string_view::npos) end = patch.size();
        const std::string_view line = patch.substr(pos, end - pos);
        pos = end + 1;
        if (!line.starts_with("***")) continue;  // re.match anchors at column 0
        std::string_view rest = line.substr(3);
        bool matched = false;
        for (std::string_view op : {"Update", "Add", "Delete"}) {
            auto after = word(rest, op, true);
            if (!after) continue;
            auto path = word(*after, "File:", false);
            if (!path) continue;
            // (.+) then .strip(): an empty path is Hermes's own parse error, no write.
            out.targets.emplace_back(strip(*path));
            matched = true;
            break;
        }
        if (!matched)
            if (auto after = word(rest, "Move", true))
                if (auto both = word(*after, "File:", false)) {
                    // (.+?)\s*->\s*(.+): the source ends at the first "->" after one character.
                    size_t arrow = both->size() > 1 ? both->find("->", 1) : std::string_view::npos;
                    if (arrow == std::string_view::npos) {
                        out.error = "a Move File line without \"SRC -> DST\": " + std::string(line);
                    } else {
                        out.targets.emplace_back(strip(both->substr(0, arrow)));
                        out.targets.emplace_back(strip(both->substr(arrow + 2)));
                    }
                    matched = true;
                }
        if (!matched) {
            auto marker = [&](std::string_view w) {
                auto a = word(rest, w, true);
                if (!a) return false;
                auto b = word(*a, "Patch", false);
                return b && strip(*b).empty();
            };
            // "*** End of File" closes a hunk in V4A; Hermes reads it as a context line.
            auto end_of_file = [&] {
                auto a = word(rest, "End", true);
                auto b = a ? word(*a, "of", true) : std::nullopt;
                auto c = b ? word(*b, "File", false) : std::nullopt;
                return c && strip(*c).empty();
            };
            if (!marker("Begin") && !marker("End") && !end_of_file())
                out.error = "a line toolcage cannot classify: " + std::string(line.substr(0, 200));
        }
    }
    if (!out.error.empty()) out.targets.clear();
    return out;
}

}  // namespace toolcage::hook
