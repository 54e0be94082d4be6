// Command, process, arithmetic and parameter substitutions: every body is parsed.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("substitutions are parsed into their bodies", "[shell][substitution]") {
    const Row rows[] = {
        {"echo $(rm -rf ~)", "[echo] [{$([rm] [-rf] [{~}])}]"},
        {"echo `rm -rf /`", "[echo] [{$([rm] [-rf] [/])}]"},
        {"echo \"$(a)\"x", "[echo] [{$([a])}x]"},
        {"echo \"$(echo \" ) \" )\"; rm -rf /", "[echo] [{$([echo] [' ) '])}] ; [rm] [-rf] [/]"},
        {"echo $(echo ')'); rm x", "[echo] [{$([echo] [')'])}] ; [rm] [x]"},
        {"echo $(a $(b $(c)))", "[echo] [{$([a] [{$([b] [{$([c])}])}])}]"},
        {"echo `a \\`b \\\\\\`c\\\\\\`\\``", "[echo] [{$([a] [{$([b] [{$([c])}])}])}]"},
        {"echo \"`echo \\\"hi\\\"`\"", "[echo] [{$([echo] ['hi'])}]"},
        {"echo $(a\nb)", "[echo] [{$([a] ; [b])}]"},
        {"echo $(a; # ) comment\n)", "[echo] [{$([a])}]"},
        {"echo $( (a) )", "[echo] [{$(subshell([a]))}]"},
        {"echo $((a) | b)", "[echo] [{$(subshell([a]) | [b])}]"},
        {"diff <(ls a) >(cat)", "[diff] [{<([ls] [a])}] [{>([cat])}]"},
        {"cat < <(a)", "[cat] <[{<([a])}]"},
        {"echo x<(a)", "[echo] [x{<([a])}]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("arithmetic keeps its text and parses substitutions inside", "[shell][substitution]") {
    const Row rows[] = {
        {"echo $((1 + 2))", "[echo] [{$((1 + 2))}]"},
        {"echo $(( a[$(rm -rf ~)] ))", "[echo] [{$(( a[$(rm -rf ~)] )) <[rm] [-rf] [{~}]>}]"},
        {"echo $[ 1 + `id` ]", "[echo] [{$(( 1 + `id` )) <[id]>}]"},
        {"echo $(( (1 + 2) * ${x:-$(id)} ))", "[echo] [{$(( (1 + 2) * ${x:-$(id)} )) <[id]>}]"},
        {"echo \"$(( rm -rf /x ))\"", "[echo] [{$(( rm -rf /x ))}]"},
        {"(( x = $(a) + $(b) ))", "arith([{$(( x = $(a) + $(b) )) <[a]> <[b]>}])"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("parameter expansions keep name and operator, with substitutions parsed",
          "[shell][substitution]") {
    const Row rows[] = {
        {"echo $HOME $1 $@ $# $? $$ $! $- $0 $10",
         "[echo] [{$HOME}] [{$1}] [{$@}] [{$#}] [{$?}] [{$$}] [{$!}] [{$-}] [{$0}] [{$1}0]"},
        {"echo ${HOME} ${10} ${#x} ${!x} ${#} ${!}",
         "[echo] [{$HOME}] [{$10}] [{$#x}] [{$!x}] [{$#}] [{$!}]"},
        {"echo ${x:-$(rm -rf /)}", "[echo] [{$x :-$(rm -rf /) <[rm] [-rf] [/]>}]"},
        {"echo ${x:?msg} ${x#*/} ${x%%.*} ${x/a/b} ${x^^} ${x:1:2} ${x@Q}",
         "[echo] [{$x :?msg}] [{$x #*/}] [{$x %%.*}] [{$x /a/b}] [{$x ^^}] [{$x :1:2}] [{$x @Q}]"},
        {"echo ${a[$(id)]}", "[echo] [{$a[$(id)] <[id]>}]"},
        {"echo ${a[@]} ${!a[@]} ${!pre*}", "[echo] [{$a[@]}] [{$!a[@]}] [{$!pre *}]"},
        {"echo ${x:-${y:-`id`}}", "[echo] [{$x :-${y:-`id`} <[id]>}]"},
        {"echo ${x:-{a}}", "[echo] [{$x :-{a}}]"},
        {"echo \"${x:-'}'}\"", "[echo] [{$x :-'}'}]"},
        {"echo ${x:-\"$(a)\"}", "[echo] [{$x :-\"$(a)\" <[a]>}]"},
        {"echo \"${x}\"y", "[echo] [{$x}y]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("parameter parts inside double quotes are marked quoted", "[shell][substitution]") {
    Word w = first_word("\"$x\"$y");
    REQUIRE(w.parts.size() == 2);
    CHECK(w.parts[0].kind == PartKind::parameter);
    CHECK(w.parts[0].quoted);
    CHECK_FALSE(w.parts[1].quoted);
}

TEST_CASE("unterminated substitutions are refused", "[shell][substitution][errors]") {
    const char* bad[] = {"echo $(a", "echo `a",      "echo ${x", "echo $((1+2)", "echo $[1",
                         "echo <(a", "echo \"$(a\"", "echo ${}", "echo $(a))",   "echo ${x:-$(a}"};
    for (const char* src : bad) {
        ParseResult r = parse(src);
        INFO("source: " << src << " -> " << r.error);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find(" at offset ") != std::string::npos);
    }
}
