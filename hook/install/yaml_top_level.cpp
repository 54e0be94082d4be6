#include "hook/install/yaml_top_level.h"

namespace toolcage::install {

namespace {

// Where a multi-line value that began on a top-level line is still open.
enum class Open { none, double_quote, single_quote, flow };

struct Scanner {
    Open open = Open::none;
    int depth = 0;  // flow brackets

    // Consumes `s` (starting inside whatever is open); leaves `open` as it is at the end.
    void consume(std::string_view s) {
        for (size_t i = 0; i < s.size(); ++i) {
            char c = s[i];
            switch (open) {
                case Open::double_quote:
                    if (c == '\\')
                        ++i;
                    else if (c == '"')
                        open = depth > 0 ? Open::flow : Open::none;
                    break;
                case Open::single_quote:
                    if (c == '\'') {
                        if (i + 1 < s.size() && s[i + 1] == '\'')
                            ++i;
                        else
                            open = depth > 0 ? Open::flow : Open::none;
                    }
                    break;
                case Open::flow:
                    if (c == '"') open = Open::double_quote;
                    if (c == '\'') open = Open::single_quote;
                    if (c == '[' || c == '{') ++depth;
                    if (c == ']' || c == '}') {
                        if (--depth == 0) open = Open::none;
                    }
                    if (c == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return;
                    break;
                case Open::none:
                    return;
            }
        }
    }

    // A value as written after `key:`: opens a quote or a flow collection it may not close.
    void start_value(std::string_view v) {
        if (v.empty()) return;
        if (v[0] == '"') {
            open = Open::double_quote;
            consume(v.substr(1));
        } else if (v[0] == '\'') {
            open = Open::single_quote;
            consume(v.substr(1));
        } else if (v[0] == '[' || v[0] == '{') {
            open = Open::flow;
            depth = 1;
            consume(v.substr(1));
        }
    }
};

std::string strip_comment(std::string_view v) {
    v = trim(v);
    if (!v.empty() && (v[0] == '"' || v[0] == '\'')) return std::string(v);
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == '#' && (i == 0 || v[i - 1] == ' ' || v[i - 1] == '\t'))
            return std::string(trim(v.substr(0, i)));
    return std::string(v);
}

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

}  // namespace

TopLevelScan scan_top_level(const TextLines& text, size_t skip_begin, size_t skip_end) {
    TopLevelScan out;
    Scanner sc;
    size_t open_line = 0;
    bool seen_content = false, ended = false;
    auto fail = [&](size_t i, const std::string& why) {
        out.problem = "line " + std::to_string(i + 1) + ": " + why;
        return out;
    };
    for (size_t i = 0; i < text.lines.size(); ++i) {
        if (i >= skip_begin && i < skip_end) continue;
        std::string_view line = bare(text.lines[i]);
        if (sc.open != Open::none) {
            sc.consume(line);
            continue;
        }
        if (trim(line).empty()) continue;
        char c = line[0];
        if (is_blank(c)) {
            if (trim(line)[0] != '#' && !out.keys.empty()) out.keys.back().has_children = true;
            continue;
        }
        if (c == '#') continue;
        if (line.starts_with("---")) {
            std::string_view rest = trim(line.substr(3));
            if (line.size() > 3 && !is_blank(line[3]))
                return fail(i, "a line starting with --- that is not a document marker");
            if (!rest.empty() && rest[0] != '#')
                return fail(i, "content after --- on the document marker line");
            if (seen_content)
                return fail(i,
                            "a second YAML document starts here; toolcage edits single-document "
                            "files only");
            continue;
        }
        if (line.starts_with("...")) {
            ended = true;
            continue;
        }
        if (c == '%') {
            if (seen_content) return fail(i, "a YAML directive after content");
            continue;
        }
        if (ended) return fail(i, "content after the document end marker (...)");
        if (c == '-' && (line.size() == 1 || is_blank(line[1]))) {
            if (out.keys.empty()) return fail(i, "the top level is a list, not a mapping of keys");
            out.keys.back().has_children = true;  // `key:` followed by a list at column 0
            continue;
        }
        if (c == '{' || c == '[')
            return fail(i, "the top level is written in flow style ({...} or [...])");
        if (c == '?') return fail(i, "a complex key (?) at the top level");
        if (c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '@' || c == '`')
            return fail(i, "an anchor, alias, tag or scalar where a top-level key should be");

        TopLevelKey key;
        key.line = i;
        size_t after_key = 0;
        if (c == '"' || c == '\'') {
            size_t j = 1;
            for (; j < line.size(); ++j) {
                if (c == '"' && line[j] == '\\' && j + 1 < line.size()) {
                    key.name += line[++j];  // close enough for comparing with "hooks"
                    continue;
                }
                if (line[j] == c) {
                    if (c == '\'' && j + 1 < line.size() && line[j + 1] == '\'') {
                        key.name += '\'';
                        ++j;
                        continue;
                    }
                    break;
                }
                key.name += line[j];
            }
            if (j >= line.size()) return fail(i, "a quoted key that is not closed on its line");
            size_t k = j + 1;
            while (k < line.size() && is_blank(line[k])) ++k;
            if (k >= line.size() || line[k] != ':')
                return fail(i, "a quoted key without a colon after it");
            after_key = k + 1;
        } else {
            size_t colon = std::string_view::npos;
            for (size_t j = 0; j < line.size(); ++j) {
                if (line[j] == '#' && j > 0 && is_blank(line[j - 1])) break;
                if (line[j] == ':' && (j + 1 == line.size() || is_blank(line[j + 1]))) {
                    colon = j;
                    break;
                }
            }
            if (colon == std::string_view::npos)
                return fail(
                    i, "\"" + std::string(line.substr(0, 60)) + "\" is not a `key: value` line");
            key.name = std::string(trim(line.substr(0, colon)));
            after_key = colon + 1;
        }
        if (key.name == "<<")
            return fail(i, "a merge key (<<) may bring in keys a line scan cannot see");
        key.value = strip_comment(line.substr(after_key));
        seen_content = true;
        sc.start_value(key.value);
        if (sc.open != Open::none) open_line = i;
        out.keys.push_back(std::move(key));
    }
    if (sc.open != Open::none)
        return fail(open_line, "a quoted or [flow] value that is never closed");
    return out;
}

}  // namespace toolcage::install
