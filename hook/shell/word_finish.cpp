// After quote removal: brace expansion, tilde prefixes and glob characters, applied where bash
// applies them for the word's place (WordContext).
#include "hook/shell/brace_expansion.h"
#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

namespace {

WordPart literal_part(std::string text, bool quoted) {
    WordPart p;
    p.text = std::move(text);
    p.quoted = quoted;
    return p;
}

// Splits an unquoted literal at a tilde prefix starting at `at` (the '~'), if the prefix is
// wholly unquoted: it ends at '/', at ':' in assignments, or at the end of the word.
bool split_tilde(std::vector<WordPart>& parts, size_t index, size_t at, bool assignment) {
    const std::string& text = parts[index].text;
    size_t end = at + 1;
    while (end < text.size() && text[end] != '/' && !(assignment && text[end] == ':')) ++end;
    bool last_part = index + 1 == parts.size();
    if (end == text.size() && !last_part) return false;  // quoted or expanded text follows
    WordPart tilde;
    tilde.kind = PartKind::tilde;
    tilde.text = text.substr(at + 1, end - at - 1);
    std::vector<WordPart> repl;
    if (at > 0) repl.push_back(literal_part(text.substr(0, at), false));
    repl.push_back(std::move(tilde));
    if (end < text.size()) repl.push_back(literal_part(text.substr(end), false));
    parts.erase(parts.begin() + static_cast<long>(index));
    parts.insert(parts.begin() + static_cast<long>(index), repl.begin(), repl.end());
    return true;
}

bool is_unquoted_literal(const WordPart& p) {
    return p.kind == PartKind::literal && !p.quoted;
}

// Is the word name=… or name+=… (then bash expands ~ after = and after each :)?
bool looks_like_assignment(const std::vector<WordPart>& parts, size_t& eq) {
    if (parts.empty() || !is_unquoted_literal(parts[0])) return false;
    const std::string& t = parts[0].text;
    eq = t.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    std::string_view name(t.data(), eq);
    if (name.back() == '+') name.remove_suffix(1);
    return is_valid_name(name);
}

void apply_tilde(std::vector<WordPart>& parts, bool assignment_value) {
    if (parts.empty() || !is_unquoted_literal(parts[0])) return;
    size_t eq = std::string::npos;
    bool assignment = assignment_value || looks_like_assignment(parts, eq);
    if (parts[0].text[0] == '~') {
        split_tilde(parts, 0, 0, assignment);
    } else if (assignment && !assignment_value && eq + 1 < parts[0].text.size() &&
               parts[0].text[eq + 1] == '~') {
        split_tilde(parts, 0, eq + 1, true);
    }
    if (!assignment) return;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (!is_unquoted_literal(parts[i])) continue;
        const std::string& t = parts[i].text;
        for (size_t c = 0; c + 1 < t.size(); ++c) {
            if (t[c] == ':' && t[c + 1] == '~' && split_tilde(parts, i, c + 1, true)) break;
        }
    }
}

// Does a ']' follow position `at` of part `index` anywhere in the word?
bool bracket_closes(const std::vector<WordPart>& parts, size_t index, size_t at) {
    for (size_t i = index; i < parts.size(); ++i) {
        if (parts[i].kind != PartKind::literal) continue;
        if (parts[i].text.find(']', i == index ? at + 1 : 0) != std::string::npos) return true;
    }
    return false;
}

void mark_globs(std::vector<WordPart>& parts) {
    bool any = false;
    for (const WordPart& p : parts) {
        if (is_unquoted_literal(p) && p.text.find_first_of("*?[") != std::string::npos) any = true;
    }
    if (!any) return;
    std::vector<WordPart> out;
    for (size_t i = 0; i < parts.size(); ++i) {
        WordPart& p = parts[i];
        if (!is_unquoted_literal(p) || p.text.find_first_of("*?[") == std::string::npos) {
            out.push_back(std::move(p));
            continue;
        }
        const std::string& t = p.text;
        std::string lit;
        size_t c = 0;
        while (c < t.size()) {
            size_t glob_end = c;
            if (t[c] == '*' || t[c] == '?') {
                glob_end = c + 1;
            } else if (t[c] == '[' && bracket_closes(parts, i, c)) {
                size_t close = t.find(
                    ']', c + (c + 1 < t.size() && (t[c + 1] == '!' || t[c + 1] == '^') ? 3 : 2));
                if (close == std::string::npos) close = t.find(']', c + 1);
                glob_end = close == std::string::npos ? c + 1 : close + 1;
            }
            if (glob_end == c) {
                lit += t[c++];
                continue;
            }
            if (!lit.empty()) out.push_back(literal_part(std::move(lit), false));
            lit.clear();
            if (!out.empty() && out.back().kind == PartKind::glob) {
                out.back().text += t.substr(c, glob_end - c);
            } else {
                WordPart g;
                g.kind = PartKind::glob;
                g.text = t.substr(c, glob_end - c);
                out.push_back(std::move(g));
            }
            c = glob_end;
        }
        if (!lit.empty()) out.push_back(literal_part(std::move(lit), false));
    }
    parts = std::move(out);
}

// "" next to other parts adds nothing; alone it is the empty word and stays.
void drop_empty_literals(std::vector<WordPart>& parts) {
    if (parts.size() < 2) return;
    std::erase_if(parts,
                  [](const WordPart& p) { return p.kind == PartKind::literal && p.text.empty(); });
    if (parts.empty()) parts.push_back(literal_part("", true));
}

void merge_literals(std::vector<WordPart>& parts) {
    size_t w = 0;
    for (size_t r = 0; r < parts.size(); ++r) {
        if (w > 0 && parts[r].kind == PartKind::literal && parts[w - 1].kind == PartKind::literal &&
            parts[w - 1].quoted == parts[r].quoted) {
            parts[w - 1].text += parts[r].text;
            continue;
        }
        if (w != r) parts[w] = std::move(parts[r]);
        ++w;
    }
    parts.resize(w);
}

}  // namespace

void Parser::finish_word(Word w, WordContext ctx, std::vector<Word>& out) {
    size_t first = out.size();
    drop_empty_literals(w.parts);
    bool braces = (ctx == WordContext::argument || ctx == WordContext::array_item) &&
                  may_brace_expand(w.parts);
    if (braces) {
        BraceBudget budget{shared_.limits.max_words, 4 * shared_.limits.max_bytes + 65536,
                           w.raw.size(), shared_.limits.max_depth};
        auto expanded = expand_braces(w.parts, budget, base_ + pos_);
        count_words(expanded.size());
        for (auto& parts : expanded) {
            if (parts.empty()) continue;  // an unquoted empty word disappears, as in bash
            Word x;
            x.raw = w.raw;
            x.parts = std::move(parts);
            merge_literals(x.parts);
            drop_empty_literals(x.parts);
            out.push_back(std::move(x));
        }
    } else {
        count_words(1);
        out.push_back(std::move(w));
    }
    for (size_t i = first; i < out.size(); ++i) {
        Word& x = out[i];
        switch (ctx) {
            case WordContext::argument:
            case WordContext::array_item:
            case WordContext::redirect_target:
            case WordContext::cond:
                apply_tilde(x.parts, false);
                mark_globs(x.parts);
                break;
            case WordContext::assignment_value:
                apply_tilde(x.parts, true);
                break;
            case WordContext::case_pattern:
            case WordContext::cond_regex:
                mark_globs(x.parts);
                break;
            case WordContext::case_subject:
                apply_tilde(x.parts, false);
                break;
            case WordContext::heredoc_delimiter:
                break;
        }
    }
}

}  // namespace toolcage::shell::detail
