// Compound commands: ( ) { } if while until for select case (( )) [[ ]], function definitions
// and coproc. Each is recognised only where a command may start.
#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

namespace {
Script single_command_script(Command c) {
    Pipeline p;
    p.commands.push_back(std::move(c));
    p.stderr_piped.push_back(false);
    ListItem item;
    item.and_or.pipelines.push_back(std::move(p));
    Script s;
    s.items.push_back(std::move(item));
    return s;
}

// A name as bash sees it: quotes and line continuations removed when the word is plain text.
std::string plain_name(const Word& w) {
    return w.known() ? w.literal() : w.raw;
}

Word arithmetic_word(std::string text, std::vector<Script> subs) {
    Word w;
    w.raw = text;
    WordPart part;
    part.kind = PartKind::arithmetic;
    part.text = std::move(text);
    part.subs = std::move(subs);
    w.parts.push_back(std::move(part));
    return w;
}
}  // namespace

void Parser::expect_reserved(std::string_view word, std::string_view after) {
    skip_blanks();
    if (!at_reserved(word)) {
        fail("expected `" + std::string(word) + "' " + std::string(after) + ", found " +
                 describe_here(),
             pos_);
    }
    consume_reserved(word);
}

// A list that must hold at least one command (bash refuses `if true; then fi`).
Script Parser::parse_compound_list(std::string_view closer) {
    enter();
    Script s;
    parse_list(s, false);
    leave();
    if (s.items.empty()) {
        fail("expected a command before `" + std::string(closer) + "', found " + describe_here(),
             pos_);
    }
    return s;
}

Command Parser::parse_if() {
    Command c;
    c.kind = Command::Kind::if_clause;
    consume_reserved("if");
    c.bodies.push_back(parse_compound_list("then"));
    expect_reserved("then", "after the if condition");
    c.bodies.push_back(parse_compound_list("fi"));
    for (;;) {
        skip_blanks();
        if (at_reserved("elif")) {
            consume_reserved("elif");
            c.bodies.push_back(parse_compound_list("then"));
            expect_reserved("then", "after the elif condition");
            c.bodies.push_back(parse_compound_list("fi"));
        } else if (at_reserved("else")) {
            consume_reserved("else");
            c.bodies.push_back(parse_compound_list("fi"));
            expect_reserved("fi", "to close if");
            return c;
        } else {
            expect_reserved("fi", "to close if");
            return c;
        }
    }
}

Command Parser::parse_loop(Command::Kind kind, std::string_view keyword) {
    Command c;
    c.kind = kind;
    consume_reserved(keyword);
    c.bodies.push_back(parse_compound_list("do"));
    expect_reserved("do", "after the loop condition");
    c.bodies.push_back(parse_compound_list("done"));
    expect_reserved("done", "to close the loop");
    return c;
}

// do … done, or bash's { … } in its place.
Command Parser::parse_do_group(Command c) {
    skip_newlines();
    if (at_reserved("{")) {
        Command g = parse_group();
        c.bodies.push_back(std::move(g.bodies[0]));
        return c;
    }
    expect_reserved("do", "in the loop");
    c.bodies.push_back(parse_compound_list("done"));
    expect_reserved("done", "to close the loop");
    return c;
}

Command Parser::parse_for(Command::Kind kind, std::string_view keyword) {
    consume_reserved(keyword);
    skip_blanks();
    if (kind == Command::Kind::for_loop && peek() == '(' && peek_after() == '(') {
        return parse_arith_for();
    }
    Command c;
    c.kind = kind;
    if (!at_word_start())
        fail("expected a variable name after `" + std::string(keyword) + "'", pos_);
    size_t name_at = pos_;
    c.name = plain_name(read_word(WordContext::heredoc_delimiter));
    if (!is_valid_name(c.name)) fail("`" + c.name + "' is not a valid loop variable", name_at);
    skip_blanks();
    if (match_operator() == ";") consume_operator(";");
    skip_newlines();
    if (at_reserved("in")) {
        consume_reserved("in");
        for (;;) {
            skip_blanks();
            if (!at_word_start()) break;
            finish_word(read_word(WordContext::argument), WordContext::argument, c.words);
        }
        std::string_view op = match_operator();
        if (op == ";") {
            consume_operator(op);
        } else if (op != "\n") {
            fail("expected `;' or a newline after the word list, found " + describe_here(), pos_);
        }
    }
    return parse_do_group(std::move(c));
}

Command Parser::parse_arith_for() {
    Command c;
    c.kind = Command::Kind::arith_for;
    size_t open = pos_;
    consume_operator("((");
    for (int i = 0; i < 3; ++i) {
        std::vector<Script> subs;
        std::string text = read_arithmetic(')', subs, i < 2);
        if (i < 2) {
            if (peek() != ';') fail("expected `;' in for (( ))", pos_);
            ++pos_;
        }
        c.words.push_back(arithmetic_word(std::move(text), std::move(subs)));
    }
    ++pos_;
    if (peek() != ')') fail("unterminated for (( ))", open);
    ++pos_;
    count_words(3);
    skip_blanks();
    if (match_operator() == ";") consume_operator(";");
    return parse_do_group(std::move(c));
}

Command Parser::parse_arith_command() {
    Command c;
    c.kind = Command::Kind::arith_command;
    size_t open = pos_;
    consume_operator("((");
    std::vector<Script> subs;
    std::string text = read_arithmetic(')', subs);
    ++pos_;
    if (peek() != ')') fail("unterminated (( ))", open);
    ++pos_;
    count_words(1);
    c.words.push_back(arithmetic_word(std::move(text), std::move(subs)));
    return c;
}

Command Parser::parse_case() {
    Command c;
    c.kind = Command::Kind::case_clause;
    size_t open = pos_;
    consume_reserved("case");
    skip_blanks();
    if (!at_word_start()) fail("expected a word after `case'", pos_);
    finish_word(read_word(WordContext::case_subject), WordContext::case_subject, c.words);
    skip_newlines();
    expect_reserved("in", "after the case word");
    enter();
    for (;;) {
        skip_newlines();
        if (at_reserved("esac")) {
            consume_reserved("esac");
            break;
        }
        if (at_end()) fail("unterminated case (missing `esac')", open);
        if (peek() == '(') ++pos_;
        std::vector<Word> patterns;
        for (;;) {
            skip_blanks();
            if (!at_word_start()) fail("expected a case pattern, found " + describe_here(), pos_);
            finish_word(read_word(WordContext::case_pattern), WordContext::case_pattern, patterns);
            skip_blanks();
            if (match_operator() != "|") break;
            consume_operator("|");
        }
        if (match_operator() != ")")
            fail("expected `)' after a case pattern, found " + describe_here(), pos_);
        consume_operator(")");
        Script body;
        parse_list(body, false);
        c.patterns.push_back(std::move(patterns));
        c.bodies.push_back(std::move(body));
        skip_blanks();
        std::string_view op = match_operator();
        if (op == ";;" || op == ";&" || op == ";;&") {
            consume_operator(op);
            continue;
        }
        skip_newlines();
        if (!at_reserved("esac")) fail("expected `;;' or `esac', found " + describe_here(), pos_);
    }
    leave();
    return c;
}

Command Parser::parse_group() {
    Command c;
    c.kind = Command::Kind::group;
    consume_reserved("{");
    c.bodies.push_back(parse_compound_list("}"));
    expect_reserved("}", "to close the group");
    return c;
}

Command Parser::parse_subshell() {
    Command c;
    c.kind = Command::Kind::subshell;
    size_t open = pos_;
    ++pos_;
    enter();
    Script s;
    parse_list(s, true);
    leave();
    if (peek() != ')') {
        if (at_end()) fail("unterminated subshell (missing `)')", open);
        fail("unexpected token " + describe_here() + " in subshell", pos_);
    }
    if (s.items.empty()) fail("empty subshell", open);
    ++pos_;
    c.bodies.push_back(std::move(s));
    return c;
}

// [[ … ]]: words, with && || ( ) ! < > kept as words of their own; the word right of =~ is a
// regular expression in which ( ) and | are ordinary.
Command Parser::parse_cond_command() {
    Command c;
    c.kind = Command::Kind::cond_command;
    size_t open = pos_;
    consume_reserved("[[");
    enter();
    for (;;) {
        skip_newlines();
        if (at_reserved("]]")) {
            consume_reserved("]]");
            break;
        }
        if (at_end()) fail("unterminated [[ (missing `]]')", open);
        std::string_view op = match_operator();
        if (op == "&&" || op == "||" || op == "(" || op == ")" || op == "<" || op == ">") {
            Word w;
            w.raw.assign(op);
            add_literal(w.parts, op, false);
            consume_operator(op);
            count_words(1);
            c.words.push_back(std::move(w));
            continue;
        }
        if (!at_word_start()) fail("unexpected token " + describe_here() + " in [[ ]]", pos_);
        bool regex = !c.words.empty() && c.words.back().raw == "=~";
        WordContext ctx = regex ? WordContext::cond_regex : WordContext::cond;
        finish_word(read_word(ctx), ctx, c.words);
    }
    leave();
    if (c.words.empty()) fail("empty [[ ]]", open);
    return c;
}

Command Parser::parse_function_keyword() {
    Command c;
    c.kind = Command::Kind::function_def;
    consume_reserved("function");
    skip_blanks();
    if (!at_word_start()) fail("expected a function name, found " + describe_here(), pos_);
    c.name = plain_name(read_word(WordContext::heredoc_delimiter));
    at_function_parens();
    return parse_function_body(std::move(c));
}

Command Parser::parse_function_body(Command c) {
    c.kind = Command::Kind::function_def;
    skip_newlines();
    if (!at_compound_start()) {
        fail("function body must be a compound command, found " + describe_here(), pos_);
    }
    enter();
    c.bodies.push_back(single_command_script(parse_command()));
    leave();
    return c;
}

// coproc [NAME] compound-command | coproc simple-command
Command Parser::parse_coproc() {
    Command c;
    c.kind = Command::Kind::coproc;
    consume_reserved("coproc");
    skip_blanks();
    enter();
    if (!at_compound_start() && at_word_start()) {
        size_t save = pos_;
        size_t pending = pending_.size();
        size_t heredocs = shared_.heredocs.size();
        Word name = read_word(WordContext::heredoc_delimiter);
        if (at_compound_start()) {
            c.name = plain_name(name);
        } else {
            pos_ = save;
            pending_.resize(pending);
            shared_.heredocs.resize(heredocs);
        }
    }
    c.bodies.push_back(single_command_script(parse_command()));
    leave();
    return c;
}

}  // namespace toolcage::shell::detail
