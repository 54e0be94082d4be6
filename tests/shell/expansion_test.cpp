// Brace expansion, tilde prefixes, glob characters, assignments and arrays.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("brace expansion as bash does it", "[shell][expansion]") {
    const Row rows[] = {
        {"echo {a,b}", "[echo] [a] [b]"},
        {"echo x{a,b}y", "[echo] [xay] [xby]"},
        {"echo {a,b{c,d}}e", "[echo] [ae] [bce] [bde]"},
        {"echo {a,b}{1,2}", "[echo] [a1] [a2] [b1] [b2]"},
        {"echo {1..3} {3..1}", "[echo] [1] [2] [3] [3] [2] [1]"},
        {"echo {a..c} {01..10..4} {-2..2..2}", "[echo] [a] [b] [c] [01] [05] [09] [-2] [0] [2]"},
        {"echo {x} {} {a,} a{,}b", "[echo] [{x}] [{}] [a] [ab] [ab]"},
        {"echo {a..c..z} {1..b}", "[echo] [{a..c..z}] [{1..b}]"},
        {"echo \"{a,b}\" '{a,b}' \\{a,b}", "[echo] ['{a,b}'] ['{a,b}'] ['{'a,b}]"},
        {"echo {\"a b\",c}", "[echo] ['a b'] [c]"},
        {"echo {$x,y}z", "[echo] [{$x}z] [yz]"},
        {"echo ${x}{a,b}", "[echo] [{$x}a] [{$x}b]"},
        {"r{m,x} -rf /", "[rm] [rx] [-rf] [/]"},
        {"x={a,b}", "x=[{a,b}]"},
        {"echo {a,b", "[echo] [{a,b]"},
        {"echo a,b}", "[echo] [a,b}]"},
        {"find . -exec rm {} +", "[find] [.] [-exec] [rm] [{}] [+]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("brace expansion keeps raw and counts words", "[shell][expansion]") {
    ParseResult r = parse("echo {1..5}");
    REQUIRE(r.ok);
    const auto& words = r.script.items[0].and_or.pipelines[0].commands[0].words;
    REQUIRE(words.size() == 6);
    CHECK(words[3].raw == "{1..5}");
    CHECK(words[3].literal() == "3");
}

TEST_CASE("tilde only at word start or after = and : in assignments", "[shell][expansion]") {
    const Row rows[] = {
        {"echo ~ ~/x ~root ~root/x ~+ ~-",
         "[echo] [{~}] [{~}/x] [{~root}] [{~root}/x] [{~+}] [{~-}]"},
        {"echo a~ x/~ \"~\" \\~ '~'", "[echo] [a~] [x/~] ['~'] ['~'] ['~']"},
        {"echo ~\"root\" ~$u", "[echo] [~'root'] [~{$u}]"},
        {"P=~/bin:~/x:a~ cmd", "P=[{~}/bin:{~}/x:a~] [cmd]"},
        {"export P=~/bin:~r", "[export] [P={~}/bin:{~r}]"},
        {"echo --opt=~/x", "[echo] [--opt=~/x]"},
        {"echo {~,~root}", "[echo] [{~}] [{~root}]"},
        {"cd ~; ls", "[cd] [{~}] ; [ls]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("unquoted glob characters become glob parts", "[shell][expansion]") {
    const Row rows[] = {
        {"ls * ?.c [ab]x [!a]* a[]]",
         "[ls] [{glob *}] [{glob ?}.c] [{glob [ab]}x] [{glob [!a]*}] [a{glob []]}]"},
        {"ls '*' \"?\" \\[a]", "[ls] ['*'] ['?'] ['['a]]"},
        {"[ -f x ]", "[[] [-f] [x] []]"},
        {"x=* y=[a]", "x=[*] y=[[a]]"},
        {"case f in *.c) a;; esac", "case([{glob *}.c]) [a] ;; subject [f])"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("assignments, subscripts and arrays", "[shell][expansion]") {
    const Row rows[] = {
        {"A=1 B= C+=x cmd", "A=[1] B=[] C+=[x] [cmd]"},
        {"a[1]=x a[$(id)]=y", "a[1]=[x] a[$(id)]=[y] <[id]>"},
        {"a[i+1]+=z", "a[i+1]+=[z]"},
        {"a=(1 \"2 3\" $(id) {x,y}\n 4) cmd", "a=([1] ['2 3'] [{$([id])}] [x] [y] [4]) [cmd]"},
        {"a=()", "a=()"},
        {"a=([k]=v)", "a=([{glob [k]}=v])"},
        {"cmd A=1", "[cmd] [A=1]"},
        {"declare -a a=(1 $(id))", "[declare] [-a] [a=(1 {$([id])})]"},
        {"local x=$(id) y", "[local] [x={$([id])}] [y]"},
        {"1a=x", "[1a=x]"},
        {"a[x=1", "[a[x=1]"},
        {"VAR=x; eval \"$VAR\"", "VAR=[x] ; [eval] [{$VAR}]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("assignment fields", "[shell][expansion]") {
    ParseResult r = parse("a[$(rm -rf ~)]+=x");
    REQUIRE(r.ok);
    const Assignment& a = r.script.items[0].and_or.pipelines[0].commands[0].assignments.at(0);
    CHECK(a.name == "a[$(rm -rf ~)]");
    CHECK(a.append);
    CHECK_FALSE(a.array);
    REQUIRE(a.subscript_subs.size() == 1);
    CHECK(dump(a.subscript_subs[0]) == "[rm] [-rf] [{~}]");
    CHECK(a.value.literal() == "x");
}
