// Internal to the shell front end: the recursive-descent parser that turns bash text into the
// tree of ast.h. One Parser reads one text; derived texts (backquotes, heredoc bodies) get a child.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hook/shell/ast.h"

namespace toolcage::shell::detail {

// Thrown inside the parser only; parse() turns it into ParseResult::error.
struct SyntaxError {
    std::string message;
};

// A heredoc body, read when the line that introduced it ends. Redirects point at it by index
// until parse() moves the bodies into the tree.
struct HeredocRecord {
    std::string body;
    bool quoted = false;
    std::vector<Script> subs;
};

// What every parser of one parse() call shares: the bounds and the counts measured against them.
struct SharedState {
    explicit SharedState(const ParseLimits& l) : limits(l) {}
    const ParseLimits& limits;
    size_t words = 0;
    size_t expanded_bytes = 0;
    std::vector<HeredocRecord> heredocs;
};

// Where a word stands decides which expansions bash applies to it.
enum class WordContext {
    argument,           // brace, tilde, glob
    assignment_value,   // tilde after = and :, no brace, no glob
    array_item,         // brace, tilde, glob
    redirect_target,    // tilde, glob
    case_pattern,       // glob
    cond,               // tilde, glob  ([[ … ]])
    cond_regex,         // right of =~: ( ) | belong to the word
    heredoc_delimiter,  // quote removal only
    case_subject,       // tilde
};

struct PendingHeredoc {
    size_t id;
    std::string delimiter;
    bool strip_tabs;
    bool quoted;
};

class Parser {
  public:
    Parser(std::string_view src, SharedState& shared, int depth, size_t base_offset);

    // The whole text as one script (top level, backquote bodies, heredoc-body scans).
    Script parse_program();
    // An unquoted heredoc body: every substitution in it, parsed.
    std::vector<Script> scan_heredoc_body();

    // ---- reader (reader.cpp): characters, blanks, comments, operators, reserved words
    [[noreturn]] void fail(const std::string& what, size_t at) const;
    // Past line continuations starting at p.
    size_t skip_lc(size_t p) const {
        while (p + 1 < src_.size() && src_[p] == '\\' && src_[p + 1] == '\n') p += 2;
        return p;
    }
    // The current char, continuations skipped; '\0' at the end.
    char peek() {
        pos_ = skip_lc(pos_);
        return pos_ < src_.size() ? src_[pos_] : '\0';
    }
    char peek_after();  // the char after the current one
    bool at_end();
    void advance() { ++pos_; }
    void skip_blanks();                 // spaces, tabs, continuations, comments
    std::string_view match_operator();  // the operator at pos_, "" if none
    void consume_operator(std::string_view op);
    bool at_reserved(std::string_view word);  // an unquoted reserved word in command position
    void consume_reserved(std::string_view word);
    bool at_word_start();  // something that is not an operator, newline or end
    void enter();          // depth + 1, refused past max_depth
    void leave() { --depth_; }
    void count_words(size_t n);
    std::string describe_here();  // "`fi'" or "end of input", for error messages

    // ---- words (word_parser.cpp)
    Word read_word(WordContext ctx);
    void read_single_quoted(std::vector<WordPart>& parts);
    void read_double_quoted(std::vector<WordPart>& parts);
    void read_dollar(std::vector<WordPart>& parts, bool in_dquote);
    void read_parameter_braced(std::vector<WordPart>& parts, bool in_dquote);
    void read_command_sub(std::vector<WordPart>& parts, bool in_dquote);
    void read_backquoted(std::vector<WordPart>& parts, bool in_dquote);
    void read_process_sub(std::vector<WordPart>& parts);
    bool looks_arithmetic(size_t from) const;  // $(( / (( closes with ))
    std::string read_arithmetic(char close, std::vector<Script>& subs,
                                bool stop_at_semicolon = false);
    std::string read_subscript(std::vector<Script>& subs);
    void read_braced_operator(std::vector<Script>& subs);
    Script read_nested_script_until_paren();
    // Appends the word, after the expansions its place calls for, to out.
    void finish_word(Word w, WordContext ctx, std::vector<Word>& out);

    // ---- heredocs (heredoc.cpp)
    void add_heredoc(Redirect& r, bool strip_tabs);
    void read_pending_heredocs();

    // ---- grammar (command_grammar.cpp, compound_commands.cpp)
    void parse_list(Script& out, bool in_parens);
    bool list_stops(bool in_parens);
    AndOr parse_and_or();
    Pipeline parse_pipeline();
    Command parse_command();
    Command parse_simple_command();
    bool try_read_assignment(Assignment& a);
    bool try_read_redirect(std::vector<Redirect>& out);
    void read_trailing_redirects(Command& c);
    void skip_newlines();
    Script parse_compound_list(std::string_view closer);
    Script parse_body_until(std::initializer_list<std::string_view> closers);
    void expect_reserved(std::string_view word, std::string_view after);
    Command parse_if();
    Command parse_loop(Command::Kind kind, std::string_view keyword);
    Command parse_for(Command::Kind kind, std::string_view keyword);
    Command parse_arith_for();
    Command parse_do_group(Command c);
    Command parse_case();
    Command parse_group();
    Command parse_subshell();
    Command parse_arith_command();
    Command parse_cond_command();
    Command parse_function_keyword();
    Command parse_function_body(Command c);
    Command parse_coproc();
    bool at_compound_start();
    bool at_function_parens();

    std::string_view src_;
    size_t pos_ = 0;
    SharedState& shared_;
    int depth_;
    size_t base_;
    std::vector<PendingHeredoc> pending_;
};

inline bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
inline bool is_meta(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '&' || c == ';' || c == '(' ||
           c == ')' || c == '<' || c == '>';
}
inline bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_name_char(char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}
inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_valid_name(std::string_view s);

// Adds literal text to parts, joining it to a literal part of the same quoting before it.
void add_literal(std::vector<WordPart>& parts, std::string_view text, bool quoted);
// Every substitution body found in parts (command, process, and those nested in parameters
// and arithmetic), moved into out.
void collect_subs(std::vector<WordPart>& parts, std::vector<Script>& out);

}  // namespace toolcage::shell::detail
