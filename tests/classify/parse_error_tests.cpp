// Text the parser refuses: over its bounds is refused; a plain syntax error is caged unless the
// text names something destructive (bash runs the complete commands before the error).
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::classify;

TEST_CASE("parse errors: syntax errors", "[classify][parse]") {
    auto v = classify("echo \"unterminated");
    CHECK(v.decision == Decision::cage);
    CHECK(v.rule == "parse.error");
    CHECK(v.reason.find("offset") != std::string::npos);
    CHECK(classify("ls (").decision == Decision::cage);
    CHECK(classify("if true; then ls").decision == Decision::cage);
    CHECK(classify("rm -rf ~; echo \"unterminated").decision == Decision::deny);
    CHECK(classify("echo ok\ngit reset --hard\nif then").decision == Decision::deny);
    CHECK(classify("ls > /etc/x (").decision == Decision::deny);
    CHECK(classify("curl x | sh '").decision == Decision::deny);
    CHECK(classify("bash -c 'ls \"'").decision == Decision::cage);
    CHECK(classify("echo $(").rule == "parse.error");
    CHECK(classify("eval 'echo \"'").decision == Decision::cage);
    CHECK(classify("eval 'rm -rf ~ \"'").decision == Decision::deny);
}

TEST_CASE("parse errors: input over the parser's bounds is refused", "[classify][parse]") {
    std::string big(300 * 1024, 'a');
    auto v = classify("echo " + big);
    CHECK(v.decision == Decision::deny);
    CHECK(v.rule == "parse.limit");
    std::string deep;
    for (int i = 0; i < 200; ++i) deep += "$(";
    deep += "ls";
    for (int i = 0; i < 200; ++i) deep += ")";
    CHECK(classify("echo " + deep).rule == "parse.limit");
    std::string nul("ls\0rm", 5);
    CHECK(classify(nul).decision != Decision::allow);
}

TEST_CASE("parse errors: nested shells deeper than the bound are refused", "[classify][parse]") {
    std::string cmd = "ls";
    for (int i = 0; i < 10; ++i) cmd = "eval " + std::string("'") + [&] {
        std::string q;
        for (char c : cmd) {
            if (c == '\'') {
                q += "'\\''";
            } else {
                q += c;
            }
        }
        return q;
    }() + "'";
    auto v = classify(cmd);
    CHECK(v.decision == Decision::deny);
    CHECK(v.rule == "shell.nesting-depth");
    CHECK(classify("bash -c \"bash -c 'ls'\"").decision == Decision::allow);
}
