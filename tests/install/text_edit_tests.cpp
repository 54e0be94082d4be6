// The pure parts of the installers: the YAML top-level scan and the SOUL.md directive edits.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "hook/install/soul_directive.h"
#include "hook/install/text_lines.h"
#include "hook/install/yaml_top_level.h"

using namespace toolcage::install;

namespace {

TopLevelScan scan(const std::string& text) {
    return scan_top_level(TextLines::split(text));
}

bool has_hooks(const TopLevelScan& s) {
    for (const auto& k : s.keys)
        if (k.name == "hooks") return true;
    return false;
}

}  // namespace

TEST_CASE("text lines join back to the exact bytes", "[install][text]") {
    for (const char* t : {"", "a", "a\n", "a\r\nb\r\n", "\n\n", "a\nb", "x\r\ny"})
        CHECK(TextLines::split(t).join() == t);
}

TEST_CASE("the YAML scan finds top-level hooks: only at column 0", "[install][yaml]") {
    struct Case {
        const char* text;
        bool hooks;
    };
    const Case cases[] = {
        {"hooks:\n  pre_tool_call: []\n", true},
        {"\"hooks\": {}\n", true},
        {"'hooks' : {}\n", true},
        {"---\nmodel: x\nhooks: {}\n", true},
        {"model:\n  hooks: {}\n", false},                       // nested
        {"# hooks:\nmodel: x\n", false},                        // a comment
        {"notes: |\n  hooks:\n  are described here\n", false},  // inside a block scalar
        {"text: \"multi\n  hooks: no\"\nx: 1\n", false},        // inside a quoted scalar
        {"list: [a,\n  b]\nhooks_auto_accept: true\n", false},
        {"hooks_auto_accept: true\n", false},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto s = scan(c.text);
        CHECK(s.problem.empty());
        CHECK(has_hooks(s) == c.hooks);
    }
}

TEST_CASE("the YAML scan refuses files it cannot vouch for", "[install][yaml]") {
    struct Case {
        const char* text;
        const char* problem;
    };
    const Case cases[] = {
        {"{a: 1}\n", "line 1: the top level is written in flow style"},
        {"- a\n- b\n", "line 1: the top level is a list"},
        {"a: 1\n---\nb: 2\n", "line 2: a second YAML document"},
        {"<<: *base\n", "line 1: a merge key"},
        {"a: 1\njust words\n", "line 2: \"just words\" is not a `key: value` line"},
        {"a: \"never closed\nb: 2\n", "line 1: a quoted or [flow] value that is never closed"},
        {"? complex\n: value\n", "line 1: a complex key"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(scan(c.text).problem.starts_with(c.problem));
    }
}

TEST_CASE("hooks: with a value or children is not empty", "[install][yaml]") {
    auto s = scan("hooks:\n- x\n");
    REQUIRE(s.keys.size() == 1);
    CHECK(s.keys[0].has_children);
    s = scan("hooks: {}  # none yet\nmodel: x\n");
    CHECK(s.keys[0].value == "{}");
    CHECK(!s.keys[0].has_children);
}

TEST_CASE("the SOUL.md directive is set where the hook reads it and removed exactly",
          "[install][soul]") {
    const char* souls[] = {"",
                           "Be careful.\n",
                           "Be careful.",
                           "---\nname: a\n---\nBody\n",
                           "\xEF\xBB\xBFTitle\r\nBody\r\n",
                           "---\r\nname: a\r\n---\r\n"};
    for (const char* soul : souls) {
        INFO(soul);
        SoulEdit set = soul_set_policy(soul, "forge", "SOUL.md");
        CHECK(set.text != soul);
        CHECK(soul_set_policy(set.text, "forge", "SOUL.md").text == set.text);
        CHECK(soul_clear_policy(set.text, "SOUL.md").text == soul);
        SoulEdit changed = soul_set_policy(set.text, "strict", "SOUL.md");
        CHECK(changed.text.find("strict") != std::string::npos);
        CHECK(soul_clear_policy(changed.text, "SOUL.md").text == soul);
    }
}

TEST_CASE("a directive the user wrote is kept, and a different --policy is refused",
          "[install][soul]") {
    const std::string soul = "---\ntoolcage: strict\n---\nBody\n";
    CHECK(soul_set_policy(soul, "strict", "SOUL.md").text == soul);
    CHECK(soul_clear_policy(soul, "SOUL.md").text == soul);
    CHECK_THROWS_WITH(
        soul_set_policy(soul, "forge", "SOUL.md"),
        Catch::Contains("line 2: the front matter already chooses policy \"strict\""));
}
