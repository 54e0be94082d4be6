#include "hook/install/soul_directive.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/error.h"
#include "hook/install/text_lines.h"

namespace toolcage::install {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kMark = "set by toolcage install hermes";

std::string front_matter_line(const std::string& policy) {
    return "toolcage: " + policy + "  # " + std::string(kMark);
}
std::string comment_line(const std::string& policy) {
    return "<!-- toolcage: " + policy + " --> <!-- " + std::string(kMark) + " -->";
}

std::string unquote(std::string_view s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        s = s.substr(1, s.size() - 2);
    return std::string(s);
}

struct Directive {
    size_t line = 0;
    std::string value;
    bool ours = false;
};

struct Soul {
    std::string bom;
    TextLines body;
    bool has_front_matter = false;
    size_t front_matter_end = 0;  // index of the closing --- line
    std::optional<Directive> front;
    std::optional<Directive> comment;
};

// `toolcage: VALUE` in a front matter line, as the hook reads it.
std::optional<std::string> front_value(std::string_view line) {
    if (!line.starts_with("toolcage")) return std::nullopt;
    std::string_view rest = trim(line.substr(8));
    if (!rest.starts_with(":")) return std::nullopt;
    std::string_view v = rest.substr(1);
    if (size_t hash = v.find(" #"); hash != std::string_view::npos) v = v.substr(0, hash);
    return unquote(trim(v));
}

Soul read_soul(const std::string& text, const std::string& file) {
    Soul s;
    std::string_view rest = text;
    if (rest.starts_with(kBom)) {
        s.bom = std::string(kBom);
        rest.remove_prefix(kBom.size());
    }
    s.body = TextLines::split(rest);
    const auto& lines = s.body.lines;
    if (!lines.empty() && bare(lines[0]) == "---") {
        size_t end = 1;
        while (end < lines.size() && trim(lines[end]) != "---" && trim(lines[end]) != "...") ++end;
        if (end == lines.size())
            throw Error(file +
                        ": line 1: the YAML front matter opened here is never closed (no second "
                        "--- line); close it or remove the first line (nothing was changed)");
        s.has_front_matter = true;
        s.front_matter_end = end;
        for (size_t i = 1; i < end; ++i) {
            if (auto v = front_value(bare(lines[i]))) {
                s.front = Directive{i, *v, bare(lines[i]).ends_with("# " + std::string(kMark))};
                break;
            }
        }
    }
    // The first `<!-- toolcage: VALUE -->` comment, as the hook reads it (it may span lines).
    size_t pos = 0;
    while ((pos = rest.find("<!--", pos)) != std::string_view::npos) {
        size_t end = rest.find("-->", pos + 4);
        if (end == std::string_view::npos) break;
        std::string_view inner = rest.substr(pos + 4, end - pos - 4);
        while (!inner.empty() && (inner.front() == ' ' || inner.front() == '\t' ||
                                  inner.front() == '\n' || inner.front() == '\r'))
            inner.remove_prefix(1);
        if (inner.starts_with("toolcage")) {
            std::string_view r = trim(inner.substr(8));
            if (r.starts_with(":")) {
                std::string value = unquote(trim(r.substr(1)));
                size_t line = static_cast<size_t>(
                    std::count(rest.begin(), rest.begin() + static_cast<long>(pos), '\n'));
                bool ours = line == 0 && !lines.empty() && bare(lines[0]) == comment_line(value);
                s.comment = Directive{line, value, ours};
                break;
            }
        }
        pos = end + 3;
    }
    return s;
}

struct Found {
    Directive* d;
    const char* form;
    bool front;
};

// The directives present, front matter first (the one the hook prefers).
std::vector<Found> found(Soul& s) {
    std::vector<Found> out;
    if (s.front) out.push_back({&*s.front, "front matter", true});
    if (s.comment) out.push_back({&*s.comment, "comment", false});
    return out;
}

}  // namespace

SoulEdit soul_set_policy(const std::string& text, const std::string& policy,
                         const std::string& file) {
    Soul s = read_soul(text, file);
    for (const Found& f : found(s))
        if (!f.d->ours && f.d->value != policy)
            throw Error(file + ": line " + std::to_string(f.d->line + 1) + ": the " + f.form +
                        " already chooses policy \"" + f.d->value + "\"; change it to \"" + policy +
                        "\" by hand, or run without --policy (nothing was changed)");
    const std::string cr = s.body.cr();
    for (const Found& f : found(s)) {
        if (!f.d->ours) continue;
        if (f.d->value == policy) return {text, "already chooses policy " + policy};
        std::string old = f.d->value;
        s.body.lines[f.d->line] = (f.front ? front_matter_line(policy) : comment_line(policy)) + cr;
        return {s.bom + s.body.join(), "changed the policy from " + old + " to " + policy};
    }
    if (!found(s).empty())
        return {text, "already chooses policy " + policy + " (a directive written by hand)"};
    if (s.has_front_matter) {
        s.body.lines.insert(s.body.lines.begin() + static_cast<long>(s.front_matter_end),
                            front_matter_line(policy) + cr);
        return {s.bom + s.body.join(), "set policy " + policy + " in the front matter"};
    }
    if (s.body.lines.empty()) s.body.final_newline = true;
    s.body.lines.insert(s.body.lines.begin(), comment_line(policy) + cr);
    return {s.bom + s.body.join(), "set policy " + policy + " in a comment on the first line"};
}

SoulEdit soul_clear_policy(const std::string& text, const std::string& file) {
    Soul s = read_soul(text, file);
    for (const Found& f : found(s)) {
        if (!f.d->ours) continue;
        std::string old = f.d->value;
        s.body.lines.erase(s.body.lines.begin() + static_cast<long>(f.d->line));
        return {s.bom + s.body.join(), "removed the policy directive toolcage wrote (" + old + ")"};
    }
    return {text, "no directive of toolcage's"};
}

}  // namespace toolcage::install
