// Lists, pipelines, compound commands, functions, coproc: every place a command can start.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("lists and pipelines", "[shell][grammar]") {
    const Row rows[] = {
        {"a; b & c && d || e\nf", "[a] ; [b] & ; [c] && [d] || [e] ; [f]"},
        {"a &", "[a] &"},
        {"a;", "[a]"},
        {"a &&\n\n b", "[a] && [b]"},
        {"a |\n b", "[a] | [b]"},
        {"a | b |& c", "[a] | [b] |& [c]"},
        {"! a | b", "! [a] | [b]"},
        {"time -p a", "time [a]"},
        {"time ! a", "time ! [a]"},
        {"\n\n a \n\n", "[a]"},
        {"", ""},
        {"a&b", "[a] & ; [b]"},
        {"echo if then fi", "[echo] [if] [then] [fi]"},
        {"echo }", "[echo] [}]"},
        {"echo {", "[echo] [{]"},
        {"x=1", "x=[1]"},
        {"> f", ">[f]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("pipeline flags are recorded per command", "[shell][grammar]") {
    ParseResult r = parse("a |& b | c");
    REQUIRE(r.ok);
    const Pipeline& p = r.script.items[0].and_or.pipelines[0];
    REQUIRE(p.commands.size() == 3);
    REQUIRE(p.stderr_piped.size() == 3);
    CHECK(p.stderr_piped[0]);
    CHECK_FALSE(p.stderr_piped[1]);
    CHECK_FALSE(p.stderr_piped[2]);
    CHECK(r.script.items[0].and_or.ops.empty());
}

TEST_CASE("compound commands", "[shell][grammar]") {
    const Row rows[] = {
        {"(a; b)", "subshell([a] ; [b])"},
        {"( (a) )", "subshell(subshell([a]))"},
        {"{ a; b; }", "group([a] ; [b])"},
        {"{ a\n}", "group([a])"},
        {"if a; then b; fi", "if([a] | [b])"},
        {"if a; then b; elif c; then d; elif e; then f; else g; fi",
         "if([a] | [b] | [c] | [d] | [e] | [f] | [g])"},
        {"if a\nthen\n b\nfi", "if([a] | [b])"},
        {"while a; do b; done", "while([a] | [b])"},
        {"until a; do b; done", "until([a] | [b])"},
        {"for x in a b; do c; done", "for x([a] [b] [c])"},
        {"for x in; do c; done", "for x([c])"},
        {"for x do c; done", "for x([c])"},
        {"for x\ndo c\ndone", "for x([c])"},
        {"for x in a; { c; }", "for x([a] [c])"},
        {"select x in a b; do c; done", "select x([a] [b] [c])"},
        {"for ((i=0; i<3; i++)); do c; done",
         "arith_for([{$((i=0))}] [{$(( i<3))}] [{$(( i++))}] [c])"},
        {"for ((;;)) { c; }", "arith_for([{$(())}] [{$(())}] [{$(())}] [c])"},
        {"(( i++ ))", "arith([{$(( i++ ))}])"},
        {"[[ -f a && ! ( -d b || c < d ) ]]",
         "cond([-f] [a] [&&] [!] [(] [-d] [b] [||] [c] [<] [d] [)])"},
        {"[[ $x =~ ^(a|b) c$ ]]", "cond([{$x}] [=~] [^(a|b)] [c$])"},
        {"[[ $x == a* ]]", "cond([{$x}] [==] [a{glob *}])"},
        {"case x in a) b;; esac", "case([a]) [b] ;; subject [x])"},
        {"case x in\n a|b) c;;\n (d) e;&\n f) ;;&\n *) g\nesac",
         "case([a]|[b]) [c] ;; [d]) [e] ;; [f])  ;; [{glob *}]) [g] ;; subject [x])"},
        {"case x in esac", "case(subject [x])"},
        {"if a; then b; fi > out 2>&1", "if([a] | [b] >[out] 2>&[1])"},
        {"{ a; } | b", "group([a]) | [b]"},
        {"echo $(case x in a) b;; esac)", "[echo] [{$(case([a]) [b] ;; subject [x]))}]"},
        {"while read l; do echo \"$l\"; done < <(ls)",
         "while([read] [l] | [echo] [{$l}] <[{<([ls])}])"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("function definitions and coproc", "[shell][grammar]") {
    const Row rows[] = {
        {"f() { a; }", "function f(group([a]))"},
        {"f () ( a )", "function f(subshell([a]))"},
        {"f()\n{\n a\n}", "function f(group([a]))"},
        {"function f { a; }", "function f(group([a]))"},
        {"function f() { a; }", "function f(group([a]))"},
        {"function f if a; then b; fi", "function f(if([a] | [b]))"},
        {":(){ :|:& };:", "function :(group([:] | [:] &)) ; [:]"},
        {"f() { a; } > log", "function f(group([a] >[log]))"},
        {"coproc a b", "coproc([a] [b])"},
        {"coproc { a; }", "coproc(group([a]))"},
        {"coproc N { a; }", "coproc N(group([a]))"},
        {"coproc N ( a )", "coproc N(subshell([a]))"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("keywords count only in command position", "[shell][grammar]") {
    CHECK(tree("echo done; echo fi") == "[echo] [done] ; [echo] [fi]");
    CHECK(tree("if=1 ls") == "if=[1] [ls]");
    CHECK(tree("'if' x") == "['if'] [x]");
    CHECK(tree("{a,b}") == "[a] [b]");
    CHECK(tree("ifx") == "[ifx]");
    CHECK(tree("a || ! b") == "[a] || ! [b]");
}

TEST_CASE("syntax errors are refused with an offset", "[shell][grammar][errors]") {
    const char* bad[] = {
        "if a; then b",
        "if a; then fi",
        "while a; do b",
        "for x in a; b; done",
        "case x in a) b",
        "{ a; ",
        "( a",
        "a )",
        "a ;; b",
        "| a",
        "a |",
        "a &&",
        "; a",
        "a && ; b",
        "f() a",
        "echo a(b)",
        "[[ a",
        "(( a",
        "{ a; } b",
        "if; then a; fi",
        "fi",
        "done",
        "}",
        "a > ",
        "( )",
        "a=(1 2",
        "cat <&",
        "case x in a b) c;; esac",
        // bash accepts these, but they fail or do nothing when run; refusing them is the safe side
        "for 1 in a; do b; done",
        "[[ ]]",
        "time",
        "!",
    };
    for (const char* src : bad) {
        ParseResult r = parse(src);
        INFO("source: " << src);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find(" at offset ") != std::string::npos);
        CHECK(r.error.find('\n') == std::string::npos);
        CHECK(r.script.items.empty());
    }
}
