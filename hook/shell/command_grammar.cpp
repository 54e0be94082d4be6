// The command grammar above words: lists (; & newline), and-or lists (&& ||), pipelines
// (| |& ! time) and simple commands (assignments, words, redirections). Compound commands are
// in compound_commands.cpp.
#include <array>
#include <climits>

#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

namespace {
// Reserved words that close an enclosing compound command when met in command position.
constexpr std::array<std::string_view, 8> kClosers = {"then", "else", "elif", "fi",
                                                      "do",   "done", "esac", "}"};
constexpr std::array<std::string_view, 12> kRedirectOps = {"<<<", "<<-", "&>>", "<<", "<&", "<>",
                                                           ">>",  ">&",  ">|",  "&>", "<",  ">"};
constexpr std::array<std::string_view, 5> kAssignmentBuiltins = {"declare", "typeset", "local",
                                                                 "export", "readonly"};
}  // namespace

Script Parser::parse_program() {
    enter();
    Script s;
    parse_list(s, false);
    if (!at_end()) fail("unexpected token " + describe_here(), pos_);
    // Heredocs announced on the last line with no newline after them have empty bodies.
    read_pending_heredocs();
    leave();
    return s;
}

void Parser::skip_newlines() {
    for (;;) {
        skip_blanks();
        if (peek() != '\n') return;
        ++pos_;
        read_pending_heredocs();
    }
}

bool Parser::list_stops(bool /*in_parens*/) {
    skip_blanks();
    char c = peek();
    if (c == '\0') return true;
    if (c == ')' || c == ';') {
        std::string_view op = match_operator();
        return op == ")" || op == ";;" || op == ";&" || op == ";;&";
    }
    if (c != 't' && c != 'e' && c != 'f' && c != 'd' && c != '}') return false;
    for (std::string_view w : kClosers) {
        if (w[0] == c && at_reserved(w)) return true;
    }
    return false;
}

// Reads items until something that is not a command: end of input, ")", ";;", or a reserved
// word that closes an enclosing construct. The caller checks that what follows is its closer.
void Parser::parse_list(Script& out, bool in_parens) {
    for (;;) {
        skip_newlines();
        if (list_stops(in_parens)) return;
        ListItem item;
        item.and_or = parse_and_or();
        skip_blanks();
        std::string_view op = match_operator();
        bool more = true;
        if (op == "&") {
            consume_operator(op);
            item.background = true;
        } else if (op == ";") {
            consume_operator(op);
        } else if (op != "\n") {
            more = false;
        }
        out.items.push_back(std::move(item));
        if (!more) return;
    }
}

AndOr Parser::parse_and_or() {
    AndOr ao;
    ao.pipelines.push_back(parse_pipeline());
    for (;;) {
        skip_blanks();
        std::string_view op = match_operator();
        if (op != "&&" && op != "||") return ao;
        ao.op_at.push_back(base_ + pos_);
        consume_operator(op);
        ao.ops.emplace_back(op);
        skip_newlines();
        ao.pipelines.push_back(parse_pipeline());
    }
}

Pipeline Parser::parse_pipeline() {
    Pipeline p;
    for (;;) {
        skip_blanks();
        if (at_reserved("time")) {
            consume_reserved("time");
            p.timed = true;
            skip_blanks();
            if (at_reserved("-p")) consume_reserved("-p");
            skip_blanks();
            if (at_reserved("--")) consume_reserved("--");
        } else if (at_reserved("!")) {
            consume_reserved("!");
            p.negated = true;
        } else {
            break;
        }
    }
    enter();
    p.commands.push_back(parse_command());
    p.stderr_piped.push_back(false);
    for (;;) {
        skip_blanks();
        std::string_view op = match_operator();
        if (op != "|" && op != "|&") break;
        consume_operator(op);
        p.stderr_piped.back() = op == "|&";
        skip_newlines();
        p.commands.push_back(parse_command());
        p.stderr_piped.push_back(false);
    }
    leave();
    return p;
}

bool Parser::at_compound_start() {
    skip_blanks();
    char c = peek();
    if (c == '(') return true;
    for (std::string_view w : {"{", "if", "while", "until", "for", "select", "case", "[["}) {
        if (at_reserved(w)) return true;
    }
    return false;
}

Command Parser::parse_command() {
    skip_blanks();
    Command c;
    char ch = peek();
    // Only these first characters can begin a reserved word that opens a compound command.
    if (ch != '(' && ch != 'i' && ch != 'w' && ch != 'u' && ch != 'f' && ch != 's' && ch != 'c' &&
        ch != '{' && ch != '[') {
        return parse_simple_command();
    }
    if (ch == '(') {
        c = peek_after() == '(' && looks_arithmetic(pos_) ? parse_arith_command()
                                                          : parse_subshell();
    } else if (at_reserved("if")) {
        c = parse_if();
    } else if (at_reserved("while")) {
        c = parse_loop(Command::Kind::while_loop, "while");
    } else if (at_reserved("until")) {
        c = parse_loop(Command::Kind::until_loop, "until");
    } else if (at_reserved("for")) {
        c = parse_for(Command::Kind::for_loop, "for");
    } else if (at_reserved("select")) {
        c = parse_for(Command::Kind::select_loop, "select");
    } else if (at_reserved("case")) {
        c = parse_case();
    } else if (at_reserved("{")) {
        c = parse_group();
    } else if (at_reserved("[[")) {
        c = parse_cond_command();
    } else if (at_reserved("function")) {
        return parse_function_keyword();
    } else if (at_reserved("coproc")) {
        return parse_coproc();
    } else {
        return parse_simple_command();
    }
    read_trailing_redirects(c);
    return c;
}

void Parser::read_trailing_redirects(Command& c) {
    for (;;) {
        skip_blanks();
        if (!try_read_redirect(c.redirects)) break;
    }
    if (at_word_start())
        fail("unexpected word " + describe_here() + " after a compound command", pos_);
}

bool Parser::at_function_parens() {
    size_t save = pos_;
    skip_blanks();
    if (peek() == '(') {
        ++pos_;
        skip_blanks();
        if (peek() == ')') {
            ++pos_;
            return true;
        }
    }
    pos_ = save;
    return false;
}

Command Parser::parse_simple_command() {
    Command c;
    c.words.reserve(4);
    bool command_seen = false;
    bool assignment_args = false;
    for (;;) {
        skip_blanks();
        if (try_read_redirect(c.redirects)) continue;
        if (!at_word_start()) break;
        if (!command_seen || assignment_args) {
            size_t save = pos_;
            Assignment a;
            if (try_read_assignment(a)) {
                if (!command_seen) {
                    c.assignments.push_back(std::move(a));
                    continue;
                }
                // declare a=(1 2): kept as a word, its parts the array's parts in order
                Word w;
                w.raw.assign(src_.substr(save, pos_ - save));
                add_literal(w.parts, a.name + (a.append ? "+=" : "="), false);
                if (a.array) {
                    add_literal(w.parts, "(", false);
                    for (size_t i = 0; i < a.items.size(); ++i) {
                        if (i > 0) add_literal(w.parts, " ", false);
                        for (WordPart& p : a.items[i].parts) w.parts.push_back(std::move(p));
                    }
                    add_literal(w.parts, ")", false);
                } else {
                    for (WordPart& p : a.value.parts) w.parts.push_back(std::move(p));
                }
                c.words.push_back(std::move(w));
                continue;
            }
        }
        Word w = read_word(WordContext::argument);
        if (!command_seen) {
            command_seen = true;
            if (c.assignments.empty() && c.redirects.empty() && at_function_parens()) {
                c.kind = Command::Kind::function_def;
                c.name = w.known() ? w.literal() : w.raw;
                return parse_function_body(std::move(c));
            }
            for (std::string_view b : kAssignmentBuiltins) {
                if (w.raw == b) assignment_args = true;
            }
        }
        finish_word(std::move(w), WordContext::argument, c.words);
    }
    if (c.words.empty() && c.assignments.empty() && c.redirects.empty()) {
        fail("unexpected token " + describe_here(), pos_);
    }
    return c;
}

// name=value, name+=value, name[sub]=value, name=( items ). On anything else pos_ is left
// where it was and false is returned.
bool Parser::try_read_assignment(Assignment& a) {
    size_t save = pos_;
    size_t p = skip_lc(pos_);
    if (p >= src_.size() || !is_name_start(src_[p])) return false;
    size_t name_begin = p;
    while (p < src_.size() && is_name_char(src_[p])) p = skip_lc(p + 1);
    if (p >= src_.size() || (src_[p] != '=' && src_[p] != '+' && src_[p] != '[')) return false;
    std::string name;
    for (size_t q = name_begin; q < p; q = skip_lc(q + 1)) name += src_[q];
    if (p < src_.size() && src_[p] == '[') {
        // Find the closing bracket cheaply before parsing the subscript for real.
        int nest = 0;
        size_t q = p;
        for (; q < src_.size(); ++q) {
            char c = src_[q];
            if (c == '[') ++nest;
            if (c == ']' && --nest == 0) break;
            if (c == '\n' || (nest == 0 && is_meta(c))) return false;
        }
        if (q >= src_.size()) return false;
        size_t after = skip_lc(q + 1);
        bool eq = after < src_.size() &&
                  (src_[after] == '=' || (src_[after] == '+' && skip_lc(after + 1) < src_.size() &&
                                          src_[skip_lc(after + 1)] == '='));
        if (!eq) return false;
        pos_ = p;
        name += read_subscript(a.subscript_subs);
        p = skip_lc(pos_);
    }
    if (p < src_.size() && src_[p] == '+') {
        size_t q = skip_lc(p + 1);
        if (q >= src_.size() || src_[q] != '=') {
            pos_ = save;
            a.subscript_subs.clear();
            return false;
        }
        a.append = true;
        p = q;
    }
    if (p >= src_.size() || src_[p] != '=') {
        pos_ = save;
        a.subscript_subs.clear();
        return false;
    }
    pos_ = p + 1;
    a.name = std::move(name);
    if (peek() == '(') {
        size_t open = pos_;
        ++pos_;
        a.array = true;
        enter();
        for (;;) {
            skip_newlines();
            char c = peek();
            if (c == ')') {
                ++pos_;
                break;
            }
            if (c == '\0') fail("unterminated array assignment", open);
            if (!at_word_start()) fail("unexpected token " + describe_here() + " in array", pos_);
            finish_word(read_word(WordContext::array_item), WordContext::array_item, a.items);
        }
        leave();
        a.value.raw.assign(src_.substr(open, pos_ - open));
    } else {
        std::vector<Word> v;
        if (at_word_start()) {
            finish_word(read_word(WordContext::assignment_value), WordContext::assignment_value, v);
        } else {
            count_words(1);
        }
        if (!v.empty()) a.value = std::move(v[0]);
        if (a.value.parts.empty()) add_literal(a.value.parts, "", false);
    }
    return true;
}

bool Parser::try_read_redirect(std::vector<Redirect>& out) {
    char c = peek();
    if (!is_digit(c) && c != '{' && c != '<' && c != '>' && c != '&') return false;
    size_t save = pos_;
    Redirect r;
    if (is_digit(c)) {
        // A long number is a redirect's descriptor only when a redirect follows it: `echo
        // 12345678901` is a word, `12345678901>f` an error.
        long long fd = 0;
        bool too_large = false;
        while (is_digit(peek())) {
            if (!too_large) fd = fd * 10 + (src_[pos_] - '0');
            if (fd > INT_MAX) too_large = true;
            ++pos_;
        }
        char d = peek();
        if ((d != '<' && d != '>') || peek_after() == '(') {
            pos_ = save;
            return false;
        }
        if (too_large) fail("file descriptor number too large", save);
        r.fd = static_cast<int>(fd);
    } else if (c == '{') {
        ++pos_;
        std::string var;
        while (is_name_char(peek())) var += src_[pos_++];
        char d = peek() == '}' ? (++pos_, peek()) : '\0';
        if (!is_valid_name(var) || (d != '<' && d != '>') || peek_after() == '(') {
            pos_ = save;
            return false;
        }
        r.fd_var = std::move(var);
    } else if ((c == '<' || c == '>') && peek_after() == '(') {
        return false;  // process substitution, a word
    }
    std::string_view op = match_operator();
    bool is_redirect = false;
    for (std::string_view x : kRedirectOps) {
        if (op == x) is_redirect = true;
    }
    if (!is_redirect || ((r.fd >= 0 || !r.fd_var.empty()) && op[0] == '&')) {
        pos_ = save;
        return false;
    }
    size_t op_at = pos_;
    consume_operator(op);
    r.op.assign(op);
    skip_blanks();
    if (!at_word_start()) fail("missing target after `" + r.op + "'", op_at);
    if (op == "<<" || op == "<<-") {
        r.target = read_word(WordContext::heredoc_delimiter);
        count_words(1);
        add_heredoc(r, op == "<<-");
    } else {
        std::vector<Word> t;
        finish_word(read_word(WordContext::redirect_target), WordContext::redirect_target, t);
        r.target = std::move(t[0]);
    }
    out.push_back(std::move(r));
    return true;
}

}  // namespace toolcage::shell::detail
