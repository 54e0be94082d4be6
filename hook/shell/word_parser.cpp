// Words: quoting ('…', "…", $'…', $"…", backslash), and the expansions that can run code
// ($( ), backquotes, <( ) >( ), $(( )), $[ ], ${ … } with its operators). Quote removal happens
// here; brace expansion, tilde and glob marking happen in finish_word().
#include <cstring>

#include "hook/shell/ansi_c_quote.h"
#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

void add_literal(std::vector<WordPart>& parts, std::string_view text, bool quoted) {
    if (!parts.empty() && parts.back().kind == PartKind::literal && parts.back().quoted == quoted) {
        parts.back().text.append(text);
        return;
    }
    WordPart p;
    p.text.assign(text);
    p.quoted = quoted;
    parts.push_back(std::move(p));
}

void collect_subs(std::vector<WordPart>& parts, std::vector<Script>& out) {
    for (WordPart& p : parts) {
        for (Script& s : p.subs) out.push_back(std::move(s));
    }
}

namespace {
bool is_word_plain(char c) {
    return !is_meta(c) && c != '\\' && c != '\'' && c != '"' && c != '$' && c != '`';
}
constexpr const char* kSpecialParams = "@*#?-$!";
bool is_special_param(char c) {
    return c != '\0' && std::strchr(kSpecialParams, c) != nullptr;
}
}  // namespace

Word Parser::read_word(WordContext ctx) {
    Word w;
    size_t begin = skip_lc(pos_);
    int regex_parens = 0;
    for (;;) {
        char c = peek();
        if (c == '\0') break;
        if (is_meta(c)) {
            if ((c == '<' || c == '>') && peek_after() == '(') {
                read_process_sub(w.parts);
                continue;
            }
            if (ctx == WordContext::cond_regex && !is_blank(c) && c != '\n') {
                // Right of =~ bash keeps ( ) | and, inside parentheses, blanks in the word.
                if (c == '(') {
                    ++regex_parens;
                } else if (c == ')') {
                    if (regex_parens == 0) break;
                    --regex_parens;
                } else if (c != '|' && regex_parens == 0) {
                    break;
                }
                add_literal(w.parts, std::string_view(&src_[pos_], 1), false);
                ++pos_;
                continue;
            }
            if (ctx == WordContext::cond_regex && is_blank(c) && regex_parens > 0) {
                add_literal(w.parts, std::string_view(&src_[pos_], 1), false);
                ++pos_;
                continue;
            }
            break;
        }
        switch (c) {
            case '\\':
                ++pos_;
                if (pos_ >= src_.size()) {
                    add_literal(w.parts, "\\", false);
                } else {
                    add_literal(w.parts, std::string_view(&src_[pos_], 1), true);
                    ++pos_;
                }
                break;
            case '\'':
                read_single_quoted(w.parts);
                break;
            case '"':
                read_double_quoted(w.parts);
                break;
            case '$':
                read_dollar(w.parts, false);
                break;
            case '`':
                read_backquoted(w.parts, false);
                break;
            default: {
                size_t e = pos_ + 1;
                while (e < src_.size() && is_word_plain(src_[e])) ++e;
                add_literal(w.parts, src_.substr(pos_, e - pos_), false);
                pos_ = e;
            }
        }
    }
    w.raw.assign(src_.substr(begin, pos_ - begin));
    return w;
}

void Parser::read_single_quoted(std::vector<WordPart>& parts) {
    size_t open = pos_;
    size_t close = src_.find('\'', open + 1);
    if (close == std::string_view::npos) fail("unterminated single quote", open);
    add_literal(parts, src_.substr(open + 1, close - open - 1), true);
    pos_ = close + 1;
}

void Parser::read_double_quoted(std::vector<WordPart>& parts) {
    size_t open = pos_;
    ++pos_;
    enter();
    add_literal(parts, "", true);  // "" is an empty word, not nothing
    for (;;) {
        char c = peek();
        if (c == '\0') fail("unterminated double quote", open);
        if (c == '"') {
            ++pos_;
            break;
        }
        if (c == '\\') {
            char d = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
            if (d == '$' || d == '`' || d == '"' || d == '\\') {
                add_literal(parts, std::string_view(&src_[pos_ + 1], 1), true);
                pos_ += 2;
            } else {
                add_literal(parts, "\\", true);
                ++pos_;
            }
        } else if (c == '$') {
            read_dollar(parts, true);
        } else if (c == '`') {
            read_backquoted(parts, true);
        } else {
            size_t e = pos_ + 1;
            while (e < src_.size() && src_[e] != '"' && src_[e] != '\\' && src_[e] != '$' &&
                   src_[e] != '`') {
                ++e;
            }
            add_literal(parts, src_.substr(pos_, e - pos_), true);
            pos_ = e;
        }
    }
    leave();
}

void Parser::read_dollar(std::vector<WordPart>& parts, bool in_dquote) {
    size_t start = pos_;
    ++pos_;
    char c = peek();
    if (c == '\'' && !in_dquote) {
        size_t p = pos_ + 1;
        while (p < src_.size() && src_[p] != '\'') p += src_[p] == '\\' ? 2 : 1;
        if (p >= src_.size()) fail("unterminated $' quote", start);
        add_literal(parts, decode_ansi_c(src_.substr(pos_ + 1, p - pos_ - 1)), true);
        pos_ = p + 1;
        return;
    }
    if (c == '"' && !in_dquote) {  // $"…": a translatable string, expanded like "…"
        read_double_quoted(parts);
        return;
    }
    if (c == '{') {
        read_parameter_braced(parts, in_dquote);
        return;
    }
    if (c == '(') {
        if (peek_after() == '(' && looks_arithmetic(pos_)) {
            WordPart part;
            part.kind = PartKind::arithmetic;
            part.quoted = in_dquote;
            consume_operator("((");
            part.text = read_arithmetic(')', part.subs);
            ++pos_;
            if (peek() != ')') fail("unterminated arithmetic expansion", start);
            ++pos_;
            parts.push_back(std::move(part));
        } else {
            read_command_sub(parts, in_dquote);
        }
        return;
    }
    if (c == '[') {
        WordPart part;
        part.kind = PartKind::arithmetic;
        part.quoted = in_dquote;
        ++pos_;
        part.text = read_arithmetic(']', part.subs);
        ++pos_;
        parts.push_back(std::move(part));
        return;
    }
    WordPart part;
    part.kind = PartKind::parameter;
    part.quoted = in_dquote;
    if (is_name_start(c)) {
        while (is_name_char(peek())) {
            part.text += src_[pos_];
            ++pos_;
        }
    } else if (is_digit(c) || is_special_param(c)) {
        part.text += c;
        ++pos_;
    } else {
        add_literal(parts, "$", in_dquote);  // a lone $ is literal
        return;
    }
    parts.push_back(std::move(part));
}

void Parser::read_parameter_braced(std::vector<WordPart>& parts, bool in_dquote) {
    size_t open = pos_ - 1;
    ++pos_;
    enter();
    WordPart part;
    part.kind = PartKind::parameter;
    part.quoted = in_dquote;
    char c = peek();
    if (c == '#' || c == '!') {  // ${#name} length, ${!name} indirection: kept in text
        char d = peek_after();
        if (d != '}' && (is_name_char(d) || is_special_param(d))) {
            part.text += c;
            ++pos_;
            c = peek();
        }
    }
    if (is_name_start(c)) {
        while (is_name_char(peek())) part.text += src_[pos_++];
        if (peek() == '[') part.text += read_subscript(part.subs);
    } else if (is_digit(c)) {
        while (is_digit(peek())) part.text += src_[pos_++];
    } else if (is_special_param(c)) {
        part.text += c;
        ++pos_;
    } else {
        fail("bad substitution", open);
    }
    size_t op_start = pos_;
    read_braced_operator(part.subs);
    part.op.assign(src_.substr(op_start, pos_ - op_start));
    ++pos_;  // the closing brace
    leave();
    parts.push_back(std::move(part));
}

// Scans the operator part of ${…} up to its closing brace (left unconsumed), parsing every
// substitution in it. Braces nest; single quotes always hide braces, even inside "…".
void Parser::read_braced_operator(std::vector<Script>& subs) {
    size_t start = pos_;
    int braces = 0;
    std::vector<WordPart> tmp;
    for (;;) {
        char c = peek();
        if (c == '\0') fail("unterminated ${", start);
        if (c == '}') {
            if (braces == 0) return;
            --braces;
            ++pos_;
        } else if (c == '{') {
            ++braces;
            ++pos_;
        } else if (c == '\\') {
            pos_ = std::min(pos_ + 2, src_.size());
        } else if (c == '\'') {
            size_t close = src_.find('\'', pos_ + 1);
            if (close == std::string_view::npos) fail("unterminated single quote", pos_);
            pos_ = close + 1;
        } else if (c == '"') {
            read_double_quoted(tmp);
        } else if (c == '$') {
            read_dollar(tmp, false);
        } else if (c == '`') {
            read_backquoted(tmp, false);
        } else if ((c == '<' || c == '>') && peek_after() == '(') {
            read_process_sub(tmp);
        } else {
            ++pos_;
        }
        if (!tmp.empty()) {
            collect_subs(tmp, subs);
            tmp.clear();
        }
    }
}

// [ … ] after a name: returns it as written; substitutions inside go to subs.
std::string Parser::read_subscript(std::vector<Script>& subs) {
    size_t open = pos_;
    ++pos_;
    read_arithmetic(']', subs);
    ++pos_;
    return std::string(src_.substr(open, pos_ - open));
}

// Reads an arithmetic text up to the unmatched `close` (left unconsumed). Parentheses (or
// brackets) nest; substitutions and quotes inside are parsed.
std::string Parser::read_arithmetic(char close, std::vector<Script>& subs, bool stop_at_semicolon) {
    size_t start = pos_;
    char open = close == ')' ? '(' : '[';
    int nest = 0;
    enter();
    std::vector<WordPart> tmp;
    for (;;) {
        char c = peek();
        if (c == '\0') fail("unterminated arithmetic expression", start);
        if (c == ';' && stop_at_semicolon && nest == 0) break;
        if (c == close) {
            if (nest == 0) break;
            --nest;
            ++pos_;
        } else if (c == open) {
            ++nest;
            ++pos_;
        } else if (c == '\\') {
            pos_ = std::min(pos_ + 2, src_.size());
        } else if (c == '\'') {
            read_single_quoted(tmp);
        } else if (c == '"') {
            read_double_quoted(tmp);
        } else if (c == '$') {
            read_dollar(tmp, false);
        } else if (c == '`') {
            read_backquoted(tmp, false);
        } else {
            ++pos_;
        }
        if (!tmp.empty()) {
            collect_subs(tmp, subs);
            tmp.clear();
        }
    }
    leave();
    return std::string(src_.substr(start, pos_ - start));
}

// At the first ( of "((": does the text close with "))" (arithmetic) or with a lone ")"
// (a subshell inside a command substitution or a subshell in a subshell)? Bash tries the
// arithmetic reading first and falls back; this scan decides the same without backtracking.
bool Parser::looks_arithmetic(size_t from) const {
    size_t p = skip_lc(from + 1);
    if (p >= src_.size() || src_[p] != '(') return false;
    ++p;
    int nest = 0;
    while (p < src_.size()) {
        char c = src_[p];
        if (c == '\\') {
            p += 2;
            continue;
        }
        if (c == '\'') {
            size_t close = src_.find('\'', p + 1);
            if (close == std::string_view::npos) return false;
            p = close + 1;
            continue;
        }
        if (c == '"') {
            ++p;
            while (p < src_.size() && src_[p] != '"') p += src_[p] == '\\' ? 2 : 1;
            ++p;
            continue;
        }
        if (c == '(') {
            ++nest;
        } else if (c == ')') {
            if (nest == 0) {
                size_t q = skip_lc(p + 1);
                return q < src_.size() && src_[q] == ')';
            }
            --nest;
        }
        ++p;
    }
    return false;
}

// Bodies of $( … ) and <( … ) are scripts closed by ")". Heredocs started inside but not yet
// read belong to the enclosing line, as in bash; the enclosing line's pending heredocs are not
// read by newlines inside.
Script Parser::read_nested_script_until_paren() {
    size_t open = pos_ - 1;
    enter();
    std::vector<PendingHeredoc> outer = std::move(pending_);
    pending_.clear();
    Script s;
    parse_list(s, true);
    if (peek() != ')') {
        if (at_end()) fail("unterminated command substitution", open);
        fail("unexpected token " + describe_here(), pos_);
    }
    ++pos_;
    outer.insert(outer.end(), std::make_move_iterator(pending_.begin()),
                 std::make_move_iterator(pending_.end()));
    pending_ = std::move(outer);
    leave();
    return s;
}

void Parser::read_command_sub(std::vector<WordPart>& parts, bool in_dquote) {
    ++pos_;  // (
    WordPart part;
    part.kind = PartKind::command_sub;
    part.quoted = in_dquote;
    part.subs.push_back(read_nested_script_until_paren());
    parts.push_back(std::move(part));
}

void Parser::read_process_sub(std::vector<WordPart>& parts) {
    WordPart part;
    part.kind = PartKind::process_sub;
    part.text = std::string(1, src_[pos_]);
    ++pos_;
    peek();
    ++pos_;  // (
    part.subs.push_back(read_nested_script_until_paren());
    parts.push_back(std::move(part));
}

// ` … `: the text up to the next unescaped backquote, with \$ \` \\ (and \" inside "…")
// unescaped, is parsed as a script of its own.
void Parser::read_backquoted(std::vector<WordPart>& parts, bool in_dquote) {
    size_t open = pos_;
    ++pos_;
    std::string body;
    for (;;) {
        if (pos_ >= src_.size()) fail("unterminated backquote", open);
        char c = src_[pos_];
        if (c == '`') {
            ++pos_;
            break;
        }
        if (c == '\\' && pos_ + 1 < src_.size()) {
            char d = src_[pos_ + 1];
            if (d == '$' || d == '`' || d == '\\' || (in_dquote && d == '"')) {
                body += d;
                pos_ += 2;
                continue;
            }
            if (d == '\n') {
                pos_ += 2;
                continue;
            }
            body += c;
            body += d;
            pos_ += 2;
            continue;
        }
        body += c;
        ++pos_;
    }
    enter();
    Parser child(body, shared_, depth_, base_ + open + 1);
    WordPart part;
    part.kind = PartKind::command_sub;
    part.quoted = in_dquote;
    part.subs.push_back(child.parse_program());
    leave();
    parts.push_back(std::move(part));
}

}  // namespace toolcage::shell::detail
