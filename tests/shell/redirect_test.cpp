// Redirections: every operator, fd numbers, {var} forms, targets with substitutions.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("redirection operators and descriptors", "[shell][redirect]") {
    const Row rows[] = {
        {"a < in > out", "[a] <[in] >[out]"},
        {"a >> log 2>&1", "[a] >>[log] 2>&[1]"},
        {"a >| f <> g", "[a] >|[f] <>[g]"},
        {"a &> f &>> g", "[a] &>[f] &>>[g]"},
        {"a 3<&0 4>&- 10>x", "[a] 3<&[0] 4>&[-] 10>[x]"},
        {"a <<< \"$(id) x\"", "[a] <<<[{$([id])}' x']"},
        {"a {fd}>f {x}<&-", "[a] {fd}>[f] {x}<&[-]"},
        {"a>f", "[a] >[f]"},
        {"a 2>f", "[a] 2>[f]"},
        {"a x2>f", "[a] [x2] >[f]"},
        {"a 2 >f", "[a] [2] >[f]"},
        {"a {x} >f", "[a] [{x}] >[f]"},
        {"> f a", "[a] >[f]"},
        {"a > $(rm -rf ~)", "[a] >[{$([rm] [-rf] [{~}])}]"},
        {"a > ~/.bashrc", "[a] >[{~}/.bashrc]"},
        {"a > \"$HOME\"/x", "[a] >[{$HOME}/x]"},
        {"a > *.txt", "[a] >[{glob *}.txt]"},
        {"a > {x,y}", "[a] >[{x,y}]"},
        {"a 2>&1 | b", "[a] 2>&[1] | [b]"},
        {"a & > f", "[a] & ; >[f]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("redirect fd numbers are stored", "[shell][redirect]") {
    ParseResult r = parse("exec 3> ~/.bashrc 2>>e < i");
    REQUIRE(r.ok);
    const auto& rs = r.script.items[0].and_or.pipelines[0].commands[0].redirects;
    REQUIRE(rs.size() == 3);
    CHECK(rs[0].fd == 3);
    CHECK(rs[0].op == ">");
    CHECK(rs[1].fd == 2);
    CHECK(rs[1].op == ">>");
    CHECK(rs[2].fd == -1);
    CHECK(rs[2].op == "<");
}

TEST_CASE("bad redirections are refused", "[shell][redirect][errors]") {
    const char* bad[] = {"a >", "a 2>", "a < ;", "a >&", "a <<", "a 99999999999>f"};
    for (const char* src : bad) {
        ParseResult r = parse(src);
        INFO("source: " << src << " -> " << r.error);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find(" at offset ") != std::string::npos);
    }
}

TEST_CASE("a number too large for a descriptor is a word where no redirect follows it",
          "[shell][redirect]") {
    for (const char* src : {"echo 99999999999 x", "run --step-id 79308516020912e7 -- ls", "sleep 123456789012345"}) {
        ParseResult r = parse(src);
        INFO("source: " << src << " -> " << r.error);
        CHECK(r.ok);
    }
}
