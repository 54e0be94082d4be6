// Character-level reading: line continuations, blanks, comments, operators and reserved words.
// Bash removes backslash-newline before tokenizing (except inside single quotes and quoted
// heredocs), so every lookahead here steps over it.
#include <array>

#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

Parser::Parser(std::string_view src, SharedState& shared, int depth, size_t base_offset)
    : src_(src), shared_(shared), depth_(depth), base_(base_offset) {}

void Parser::fail(const std::string& what, size_t at) const {
    // One line whatever the source quoted in it holds.
    std::string line;
    for (char c : what) {
        if (c == '\n') {
            line += "\\n";
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            line += '?';
        } else {
            line += c;
        }
    }
    throw SyntaxError{line + " at offset " + std::to_string(base_ + at)};
}

char Parser::peek_after() {
    pos_ = skip_lc(pos_);
    if (pos_ >= src_.size()) return '\0';
    size_t p = skip_lc(pos_ + 1);
    return p < src_.size() ? src_[p] : '\0';
}

bool Parser::at_end() {
    return peek() == '\0';
}

void Parser::skip_blanks() {
    for (;;) {
        char c = peek();
        if (is_blank(c)) {
            ++pos_;
        } else if (c == '#') {
            // A comment runs to the end of the line; the newline itself is a token.
            while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
        } else {
            return;
        }
    }
}

namespace {
// Longest first, so that a prefix never shadows a longer operator.
constexpr std::array<std::string_view, 24> kOperators = {
    ";;&", "<<<", "<<-", "&>>", "&&", "||", "|&", ";;", ";&", "<<", "<&", "<>",
    ">>",  ">&",  ">|",  "&>",  "&",  "|",  ";",  "(",  ")",  "<",  ">",  "\n"};
}  // namespace

std::string_view Parser::match_operator() {
    pos_ = skip_lc(pos_);
    if (pos_ >= src_.size() || !is_meta(src_[pos_]) || is_blank(src_[pos_])) return {};
    char first = src_[pos_];
    for (std::string_view op : kOperators) {
        if (op[0] != first) continue;
        size_t p = pos_;
        size_t i = 0;
        for (; i < op.size(); ++i) {
            p = skip_lc(p);
            if (p >= src_.size() || src_[p] != op[i]) break;
            ++p;
        }
        if (i == op.size()) return op;
    }
    return {};
}

void Parser::consume_operator(std::string_view op) {
    for (size_t i = 0; i < op.size(); ++i) {
        pos_ = skip_lc(pos_);
        ++pos_;
    }
}

bool Parser::at_reserved(std::string_view word) {
    size_t p = skip_lc(pos_);
    for (char c : word) {
        p = skip_lc(p);
        if (p >= src_.size() || src_[p] != c) return false;
        ++p;
    }
    p = skip_lc(p);
    return p >= src_.size() || is_meta(src_[p]);
}

void Parser::consume_reserved(std::string_view word) {
    consume_operator(word);
}

bool Parser::at_word_start() {
    char c = peek();
    if (c == '\0' || c == '\n') return false;
    if ((c == '<' || c == '>') && peek_after() == '(') return true;  // process substitution
    return !is_meta(c);
}

void Parser::enter() {
    if (++depth_ > shared_.limits.max_depth) {
        fail("nesting deeper than " + std::to_string(shared_.limits.max_depth) + " levels", pos_);
    }
}

void Parser::count_words(size_t n) {
    shared_.words += n;
    if (shared_.words > shared_.limits.max_words) {
        fail("more than " + std::to_string(shared_.limits.max_words) + " words", pos_);
    }
}

std::string Parser::describe_here() {
    if (at_end()) return "end of input";
    std::string_view op = match_operator();
    if (op == "\n") return "newline";
    if (!op.empty()) return "`" + std::string(op) + "'";
    size_t e = pos_;
    while (e < src_.size() && !is_meta(src_[e]) && e - pos_ < 20) ++e;
    return "`" + std::string(src_.substr(pos_, e - pos_)) + "'";
}

bool is_valid_name(std::string_view s) {
    if (s.empty() || !is_name_start(s[0])) return false;
    for (char c : s) {
        if (!is_name_char(c)) return false;
    }
    return true;
}

}  // namespace toolcage::shell::detail
