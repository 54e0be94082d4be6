// Inputs whose analysis would grow faster than their text (values doubling, functions called
// over and over, nested loops, long values matched against patterns) stop at a bound of the
// analysis and are refused (input.too-complex), as nesting past the parser's bounds is
// (parse.limit); the ordinary form of each construct keeps its usual verdict. A bound that does
// not hold makes these tests run out of time or memory.
#include <string>

#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::Verdict;
using toolcage::classify::testing::classify;

namespace {

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

void check_too_complex(const std::string& cmd, const std::string& named) {
    Verdict v = classify(cmd);
    INFO("command: " << cmd.substr(0, 200) << (cmd.size() > 200 ? "…" : ""));
    INFO("got: " << to_string(v.decision) << " " << v.rule << " (" << v.reason << ")");
    CHECK(v.decision == Decision::deny);
    CHECK(v.rule == "input.too-complex");
    CHECK(v.reason.find(named) != std::string::npos);
    CHECK(v.reason.find("toolcage run") != std::string::npos);
}

// Nesting past the parser's bounds, or an analysis past its own: refused either way.
void check_refused_as_bounded(const std::string& cmd) {
    Verdict v = classify(cmd);
    INFO("command: " << cmd.substr(0, 200) << (cmd.size() > 200 ? "…" : ""));
    INFO("got: " << to_string(v.decision) << " " << v.rule << " (" << v.reason << ")");
    CHECK(v.decision == Decision::deny);
    CHECK((v.rule == "input.too-complex" || v.rule == "parse.limit" || v.rule == "shell.nesting-depth"));
}

}  // namespace

TEST_CASE("bounds: a variable doubled again and again is refused at 64 KiB", "[classify][bounds]") {
    check_too_complex("x=a; " + repeat("x=$x$x; ", 40) + "echo $x", "65536 bytes");
    check_too_complex("x=a; " + repeat("x=\"$x$x\"; ", 40) + "ls", "65536 bytes");
    // Doubled through an array, a default, a substitution's output.
    check_too_complex("x=a; " + repeat("x=${x:-b}$x; ", 40) + "ls", "65536 bytes");
    check_too_complex("x=a; " + repeat("x=$(echo $x$x); ", 40) + "ls", "65536 bytes");
    // An array doubled: many small values rather than one large one.
    check_too_complex("a=(x); " + repeat("a=(${a[@]} ${a[@]}); ", 40) + "echo ${a[@]}", "bytes in all");
    // One word made of many copies of a value grown to a few KiB.
    check_too_complex("x=a; " + repeat("x=$x$x; ", 12) + "echo " + repeat("$x", 200), "65536 bytes");
    // A replacement that multiplies the value.
    check_too_complex("x=" + std::string(2000, 'a') + "; y=${x//a/" + std::string(200, 'b') + "}", "65536 bytes");
    // Ordinary use keeps its verdict.
    CHECK(classify("x=a; x=$x$x; x=$x$x; echo $x").decision == Decision::allow);
    CHECK(classify("d=/tmp; d=$d/x; rm -rf ~/$d").decision == Decision::deny);
    CHECK(classify("x=ab; echo ${x//a/b}").decision == Decision::allow);
}

TEST_CASE("bounds: work repeated by functions, loops and substitutions is bounded", "[classify][bounds]") {
    // A function whose body is long, called many times.
    check_too_complex("f() { echo " + repeat("word ", 2000) + "; }; " + repeat("f; ", 2000), "bytes in all");
    // A function calling the next, each twice: 2^n walks.
    std::string fns;
    for (int i = 0; i < 40; ++i)
        fns += "f" + std::to_string(i + 1) + "() { f" + std::to_string(i) + "; f" + std::to_string(i) + "; }; ";
    check_too_complex("f0() { echo hi; }; " + fns + "f40", "20000 commands");
    // Loops inside loops: each walked twice.
    check_refused_as_bounded(repeat("while true; do ", 40) + "echo x" + repeat("; done", 40));
    check_refused_as_bounded(repeat("for i in 1 2 3 4 5 6 7 8; do ", 30) + "echo $i" + repeat("; done", 30));
    // Many substitutions, each copying a large shell state.
    std::string vars;
    for (int i = 0; i < 2000; ++i) vars += "v" + std::to_string(i) + "=" + std::string(40, 'x') + "; ";
    check_too_complex(vars + repeat("echo $(true); ", 4000), "bytes in all");
    // A case with many arms, each changing the directory.
    std::string arms;
    for (int i = 0; i < 20000; ++i) arms += "a" + std::to_string(i) + ") cd d" + std::to_string(i) + ";; ";
    Verdict many_arms = classify("case $x in " + arms + "esac; ls");
    CHECK(many_arms.decision != Decision::allow);
    // Ordinary use keeps its verdict.
    CHECK(classify("f() { ls; }; f; f").decision == Decision::allow);
    CHECK(classify("for i in 1 2 3; do for j in a b; do echo $i$j; done; done").decision == Decision::allow);
    CHECK(classify("while true; do git status; done").decision == Decision::allow);
}

TEST_CASE("bounds: a pattern matched against a long value is refused", "[classify][bounds]") {
    std::string grow = "x=a; " + repeat("x=$x$x; ", 13);  // 8 KiB
    check_too_complex(grow + "echo ${x#*a*a*a*b}", "4096 bytes");
    check_too_complex(grow + "echo ${x%%a*a*b}", "4096 bytes");
    CHECK(classify("x=a/b/c.txt; echo ${x##*/} ${x%.txt}").decision == Decision::allow);
    // A long IFS splits in one pass.
    Verdict v = classify("IFS=" + std::string(60000, ',') + "; x=a,b,c; echo $x");
    CHECK(v.decision == Decision::allow);
}

TEST_CASE("bounds: deep nesting of every construct is refused, never a crash", "[classify][bounds]") {
    const size_t n = 5000;
    check_refused_as_bounded(repeat("( ", n) + "ls" + repeat(" )", n));
    check_refused_as_bounded("echo " + repeat("$(", n) + "ls" + repeat(")", n));
    check_refused_as_bounded(repeat("{ ", n) + "ls" + repeat("; }", n));
    check_refused_as_bounded(repeat("if ", n) + "true" + repeat("; then ls; fi", n));
    check_refused_as_bounded(repeat("while ", n) + "true" + repeat("; do ls; done", n));
    check_refused_as_bounded("cat " + repeat("<(", n) + "ls" + repeat(")", n));
    check_refused_as_bounded("echo " + repeat("${x:-", n) + "a" + repeat("}", n));
    check_refused_as_bounded("echo " + repeat("\"$(echo ", n) + "a" + repeat(")\"", n));
    check_refused_as_bounded(repeat("case a in a) ", n) + "ls" + repeat(";; esac", n));
    check_refused_as_bounded(repeat("f() { ", n) + "ls" + repeat("; }", n));
    // Backquotes nest by escaping: each level doubles the backslashes.
    std::string bq = "ls";
    for (int i = 0; i < 14; ++i) {
        std::string esc;
        for (char c : bq) {
            if (c == '`' || c == '\\') esc += '\\';
            esc += c;
        }
        bq = "echo `" + esc + "`";
    }
    // Arithmetic and [[ ]] are read in one pass whatever their parentheses, and backquotes
    // cannot nest past the bound within the text's bound (each level doubles the escapes):
    // read to the end, they keep their usual verdict.
    CHECK(classify(bq).decision == Decision::allow);
    CHECK(classify(repeat("(", n) + "1" + repeat(")", n)).decision == Decision::allow);
    CHECK(classify("echo $((" + repeat("(", n) + "1" + repeat(")", n) + "))").decision == Decision::allow);
    CHECK(classify("[[ " + repeat("( ", n) + "a" + repeat(" )", n) + " ]]").decision == Decision::allow);
    // Brace expansion multiplies: 2^30 words.
    check_refused_as_bounded("echo " + repeat("{a,b}", 30));
    check_refused_as_bounded("echo {1..100000000}");
    // Many heredocs, long heredoc bodies.
    std::string heredocs;
    for (int i = 0; i < 20000; ++i) heredocs += "cat <<E\nx\nE\n";
    check_refused_as_bounded(heredocs);
    Verdict body = classify("cat <<'E'\n" + repeat("line of text\n", 15000) + "E\n");
    CHECK(body.decision == Decision::allow);
    // Ordinary nesting keeps its verdict.
    CHECK(classify("( { if true; then echo $(echo `echo hi`); fi; } )").decision == Decision::allow);
    CHECK(classify("echo {a,b}{c,d} $((1+(2*3)))").decision == Decision::allow);
    CHECK(classify("diff <(ls a) <(ls b)").decision == Decision::allow);
}

TEST_CASE("bounds: nested bash -c is refused past its depth", "[classify][bounds]") {
    std::string nested = "ls";
    for (int i = 0; i < 12; ++i) {
        std::string e;
        for (char c : nested) {
            if (c == '"' || c == '\\' || c == '$' || c == '`') e += '\\';
            e += c;
        }
        nested = "bash -c \"" + e + "\"";
    }
    Verdict v = classify(nested);
    CHECK(v.decision == Decision::deny);
    CHECK(classify("bash -c \"bash -c 'ls'\"").decision == Decision::allow);
}
