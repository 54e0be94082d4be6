// Bounds: size, nesting depth, word count; unterminated constructs. Every refusal is one line
// naming the byte offset, and no input crashes or hangs the parser.
#include "tests/shell/test_util.h"

using namespace std::string_literals;

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

namespace {

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

void check_refused(const std::string& src, const ParseLimits& limits = {},
                   const std::string& needle = "") {
    ParseResult r = parse(src, limits);
    INFO("source: " << src.substr(0, 200) << "\nerror: " << r.error);
    CHECK_FALSE(r.ok);
    CHECK(r.script.items.empty());
    CHECK(r.error.find(" at offset ") != std::string::npos);
    CHECK(r.error.find('\n') == std::string::npos);
    if (!needle.empty()) CHECK(r.error.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("input longer than max_bytes is refused", "[shell][limits]") {
    ParseLimits small;
    small.max_bytes = 16;
    check_refused("echo 0123456789abcdef", small, "exceeds the limit of 16 bytes");
    CHECK(parse("echo 0123456789", small).ok);
    check_refused(std::string(300 * 1024, 'a'), {}, "bytes");
}

TEST_CASE("nesting deeper than max_depth is refused", "[shell][limits]") {
    const size_t n = 200;
    check_refused(repeat("$(", n) + "a" + repeat(")", n), {}, "nesting deeper");
    check_refused(repeat("\"$(", n) + "a" + repeat(")\"", n), {}, "nesting deeper");
    check_refused(repeat("{ ", n) + "a" + repeat("; }", n), {}, "nesting deeper");
    check_refused(repeat("( ", n) + "a" + repeat(")", n), {}, "nesting deeper");
    check_refused(repeat("if a; then ", n) + "b" + repeat("; fi", n), {}, "nesting deeper");
    check_refused("echo " + repeat("${x:-", n) + "a" + repeat("}", n), {}, "nesting deeper");
    check_refused("echo " + repeat("<(", n) + "a" + repeat(")", n), {}, "nesting deeper");
    // Parentheses inside arithmetic are counted, not recursed into: deep is fine.
    CHECK(parse("echo $((" + repeat("(", n) + "1" + repeat(")", n) + "))").ok);
    check_refused("echo " + repeat("{a,", n) + "b" + repeat("}", n));
    // Backquotes double their escapes with each level, so nest a few under a low bound.
    std::string backquotes = "a";
    for (int i = 0; i < 8; ++i) {
        std::string escaped;
        for (char c : backquotes) {
            if (c == '`' || c == '\\') escaped += '\\';
            escaped += c;
        }
        backquotes = "echo `" + escaped + "`";
    }
    ParseLimits shallow;
    shallow.max_depth = 10;
    check_refused(backquotes, shallow, "nesting deeper");
    // Within the bound the same shapes parse.
    CHECK(parse(repeat("$(", 10) + "a" + repeat(")", 10)).ok);
    CHECK(parse(repeat("{ ", 10) + "a" + repeat("; }", 10)).ok);
}

TEST_CASE("a lower max_depth is honoured", "[shell][limits]") {
    ParseLimits shallow;
    shallow.max_depth = 4;
    check_refused("echo $(echo $(echo $(echo $(echo x))))", shallow, "nesting deeper than 4");
    CHECK(parse("echo x", shallow).ok);
}

TEST_CASE("more words than max_words are refused, brace expansion included", "[shell][limits]") {
    ParseLimits few;
    few.max_words = 3;
    CHECK(parse("echo a b", few).ok);
    check_refused("echo a b c", few, "more than 3 words");
    check_refused("echo {a,b,c}", few);
    check_refused("echo {1..200000}");
    check_refused("echo {1..999999999999999999}");
    check_refused("echo " + repeat("{a,b}", 40));
    check_refused("echo " + repeat("{a,b}", 17) + repeat(" x", 10));
    CHECK(parse("echo {1..1000}").ok);
}

TEST_CASE("unterminated constructs are refused", "[shell][limits][errors]") {
    const char* bad[] = {
        "echo 'a",      "echo \"a",      "echo $'a",      "echo `a",
        "echo $(a",     "echo ${a",      "echo $((1",     "echo $[1",
        "echo <(a",     "a=(1",          "[[ a",          "(( 1",
        "if a; then b", "while a; do b", "until a; do b", "for x in a; do b",
        "case x in",    "{ a",           "( a",           "f() {",
        "echo \"$(a)",  "echo \"`a`",    "a &&",          "a |",
        "cat <<EOF $(", "echo ${x:-'a}", "for ((;;",      "select x in a; do",
    };
    for (const char* src : bad) check_refused(src);
}

TEST_CASE("offsets point at the offending construct", "[shell][limits][errors]") {
    CHECK(parse("echo 'abc").error == "unterminated single quote at offset 5");
    CHECK(parse("ls; echo \"x").error == "unterminated double quote at offset 9");
    CHECK(parse("a ;; b").error == "unexpected token `;;' at offset 2");
    CHECK(parse("echo x\0y"s).error == "NUL byte at offset 6");
}

TEST_CASE("hostile shapes end quickly", "[shell][limits]") {
    // Each would be quadratic or exponential in a naive parser; all must simply finish.
    check_refused(repeat("(", 100000));
    check_refused(repeat("$((", 30000));
    check_refused(repeat("\"", 100001));
    CHECK(parse(repeat("a ", 50000)).ok);
    CHECK(parse(repeat("a;", 50000)).ok);
    CHECK(parse("echo " + repeat("{", 20000)).ok);
    CHECK(parse("cat " + repeat("<<E ", 2000) + "\n" + repeat("x\nE\n", 2000)).ok);
    // A copy of a large substitution (or a long word) per expanded word counts against the
    // bound, not just the number of words.
    check_refused("echo {1..50000}$(" + repeat("a ", 2000) + ")", {}, "brace expansion");
    check_refused("echo {1..99999}'" + repeat("a", 4000) + "'", {}, "brace expansion");
    CHECK(parse("echo {1..1000}$(ls)").ok);
    ParseResult heredocs = parse("cat " + repeat("<<E ", 3) + "\n" + repeat("x\nE\n", 3));
    REQUIRE(heredocs.ok);
    CHECK(heredocs.script.items[0].and_or.pipelines[0].commands[0].redirects.size() == 3);
}

TEST_CASE("inputs the fuzzer found stay fixed", "[shell][limits]") {
    // An error naming a word with a line continuation in it must still be one line.
    check_refused("for d\\\nn /d *9o ${rm -rf \"$d\"\xf5\xf5");
    check_refused("for a\\\nb\nc in x; do :; done");
    CHECK(tree("for d\\\nn in a; do :; done") == "for dn([a] [:])");
}
