// Quote removal exactly as bash does it, and line continuations.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("quote forms are removed as bash removes them", "[shell][quoting]") {
    const Row rows[] = {
        {"'rm'", "['rm']"},
        {"r\"\"m", "[rm]"},
        {"r''m", "[rm]"},
        {"\"r\"m", "['r'm]"},
        {"\\r\\m", "['rm']"},
        {"'a\\b'", "['a\\b']"},
        {"\"a\\$b\\\"c\\\\d\\e\\`\"", "['a$b\"c\\d\\e`']"},
        {"\"a'b\"", "['a'b']"},
        {"'a\"b'", "['a\"b']"},
        {"$'\\x72\\x6d'", "['rm']"},
        {"$'\\162\\155'", "['rm']"},
        {"$'\\u0072\\U0000006d'", "['rm']"},
        {"$'a\\'b'", "['a'b']"},
        {"$'\\t\\n\\\\'", "['\t\n\\']"},
        {"$'\\cA\\c?'", "['\x01\x7f']"},
        {"$'\\e\\E'", "['\x1b\x1b']"},
        {"$'\\q'", "['\\q']"},
        {"$'\\xZZ'", "['\\xZZ']"},
        {"$'rm\\0junk'x", "['rm'x]"},
        {"$'\\u00e9'", "['\xc3\xa9']"},
        {"$\"rm\"", "['rm']"},
        {"\"$'x'\"", "['$'x'']"},
        {"$", "[$]"},
        {"\"$\"", "['$']"},
        {"a$", "[a$]"},
        {"\"\"", "['']"},
        {"''", "['']"},
        {"\"a\nb\"", "['a\nb']"},
        {"'a\\\nb'", "['a\\\nb']"},
        {"\"a\\\nb\"", "['ab']"},
        {"x\\#", "[x'#']"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(dump(first_word(row.source)) == row.expected);
    }
}

TEST_CASE("known words give their literal text; expansions make them unknown", "[shell][quoting]") {
    CHECK(first_word("$'\\x72\\x6d'").literal() == "rm");
    CHECK(first_word("$'\\x72\\x6d'").known());
    CHECK(first_word("'rm'").literal() == "rm");
    CHECK(first_word("r\"\"m").literal() == "rm");
    CHECK(first_word("\"\"").known());
    CHECK(first_word("\"\"").literal().empty());
    CHECK_FALSE(first_word("r$x").known());
    CHECK(first_word("r$x").literal() == "r");
    CHECK_FALSE(first_word("`echo rm`").known());
    CHECK_FALSE(first_word("~/x").known());
    CHECK_FALSE(first_word("*.c").known());
}

TEST_CASE("raw keeps the word as written", "[shell][quoting]") {
    CHECK(first_word("r\"\"m -rf").raw == "r\"\"m");
    CHECK(first_word("$'\\x72' x").raw == "$'\\x72'");
}

TEST_CASE("line continuations are removed outside single quotes", "[shell][quoting]") {
    const Row rows[] = {
        {"git re\\\nset --hard", "[git] [reset] [--hard]"},
        {"r\\\nm -rf /", "[rm] [-rf] [/]"},
        {"echo a \\\n b", "[echo] [a] [b]"},
        {"i\\\nf true; then :; f\\\ni", "if([true] | [:])"},
        {"ls &\\\n& rm x", "[ls] && [rm] [x]"},
        {"echo $HO\\\nME", "[echo] [{$HOME}]"},
        {"echo '\\\n'", "[echo] ['\\\n']"},
        {"echo a\\\n", "[echo] [a]"},
        {"echo x # comment \\\nrm -rf /", "[echo] [x] ; [rm] [-rf] [/]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("comments start only at the beginning of a word", "[shell][quoting]") {
    CHECK(tree("echo a#b # rm -rf /") == "[echo] [a#b]");
    CHECK(tree("# only a comment") == "");
    CHECK(tree("echo '#' \"#\" \\#") == "[echo] ['#'] ['#'] ['#']");
    CHECK(tree("ls # c\nrm x") == "[ls] ; [rm] [x]");
}
