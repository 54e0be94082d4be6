#include "hook/install/text_lines.h"

namespace toolcage::install {

TextLines TextLines::split(std::string_view text) {
    TextLines t;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            t.lines.emplace_back(text.substr(pos));
            return t;
        }
        t.lines.emplace_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    t.final_newline = !text.empty();
    return t;
}

std::string TextLines::join() const {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
        out += lines[i];
        if (i + 1 < lines.size() || final_newline) out += '\n';
    }
    return out;
}

std::string TextLines::cr() const {
    return !lines.empty() && !lines[0].empty() && lines[0].back() == '\r' ? "\r" : "";
}

std::string_view bare(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

}  // namespace toolcage::install
