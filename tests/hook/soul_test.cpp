// Which policy a profile gets: --policy, SOUL.md, toolcage.json, default, in that order.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "hook/decision/soul.h"
#include "run_binary.h"

using namespace toolcage::hook;
using toolcage::test::TempDir;
using toolcage::test::write_file;

TEST_CASE("a SOUL.md directive is read from front matter or an HTML comment", "[soul]") {
    struct Case {
        const char* text;
        const char* value;  // nullptr: no directive
        const char* form;
    };
    const Case cases[] = {
        {"---\ntoolcage: forge\n---\n# Soul\n", "forge", "front matter"},
        {"---\r\nname: x\r\ntoolcage: \"strict\"  # read-only\r\n---\r\n", "strict", "front matter"},
        {"\xEF\xBB\xBF---\ntoolcage: 'forge'\n---\n", "forge", "front matter"},
        {"# Soul\n<!-- toolcage: strict -->\n", "strict", "comment"},
        {"<!--\n  toolcage: forge\n-->", "forge", "comment"},
        {"<!-- other --> text <!-- toolcage:forge -->", "forge", "comment"},
        {"---\ntoolcage: forge\n---\n<!-- toolcage: strict -->", "forge", "front matter"},
        {"---\ntoolcage: forge\n(no closing line)\n", nullptr, nullptr},
        {"text\n---\ntoolcage: forge\n---\n", nullptr, nullptr},
        {"---\n  toolcage: forge\n---\n", nullptr, nullptr},
        {"toolcage: forge\n", nullptr, nullptr},
        {"", nullptr, nullptr},
        {"---\ntoolcage: ../evil.json\n---\n", "../evil.json", "front matter"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto d = soul_directive(c.text);
        if (!c.value) {
            CHECK_FALSE(d.has_value());
            continue;
        }
        REQUIRE(d.has_value());
        CHECK(d->value == c.value);
        CHECK(d->form == c.form);
    }
}

TEST_CASE("the policy is chosen by --policy, then SOUL.md, then toolcage.json, then default", "[soul]") {
    TempDir dir;
    CHECK(choose_policy("", dir.path()).policy == "default");
    CHECK(choose_policy("", "").policy == "default");

    write_file(dir / "toolcage.json", R"({"policy": "strict"})");
    auto c = choose_policy("", dir.path());
    CHECK(c.policy == "strict");
    CHECK(c.source == dir / "toolcage.json");

    write_file(dir / "SOUL.md", "---\ntoolcage: forge\n---\n");
    c = choose_policy("", dir.path());
    CHECK(c.policy == "forge");
    CHECK(c.source == dir / "SOUL.md");
    CHECK(c.error.empty());

    c = choose_policy("custom", dir.path());
    CHECK(c.policy == "custom");
    CHECK(c.step.find("--policy") != std::string::npos);
}

TEST_CASE("a directive that is not a policy name is an error, never a path to load", "[soul]") {
    TempDir dir;
    write_file(dir / "SOUL.md", "<!-- toolcage: /tmp/mine.json -->");
    auto c = choose_policy("", dir.path());
    CHECK(c.policy.empty());
    CHECK(c.error.find("not a policy name") != std::string::npos);

    TempDir dir2;
    write_file(dir2 / "toolcage.json", R"({"policy": "../x"})");
    CHECK_FALSE(choose_policy("", dir2.path()).error.empty());
    write_file(dir2 / "toolcage.json", "{not json");
    CHECK_FALSE(choose_policy("", dir2.path()).error.empty());
    write_file(dir2 / "toolcage.json", R"({"policy": 3})");
    CHECK_FALSE(choose_policy("", dir2.path()).error.empty());
}

TEST_CASE("an unreadable SOUL.md is an error, not a fall-through", "[soul]") {
    if (geteuid() == 0) {
        // root reads anything; a directory in SOUL.md's place cannot be read by anyone.
        TempDir dir;
        toolcage::test::make_dirs(dir / "SOUL.md");
        auto c = choose_policy("", dir.path());
        CHECK_FALSE(c.error.empty());
        return;
    }
    TempDir dir;
    write_file(dir / "SOUL.md", "<!-- toolcage: forge -->");
    chmod((dir / "SOUL.md").c_str(), 0);
    CHECK_FALSE(choose_policy("", dir.path()).error.empty());
}

TEST_CASE("which_policy_report names the policy and the step", "[soul]") {
    TempDir dir;
    write_file(dir / "SOUL.md", "<!-- toolcage: strict -->");
    std::string r = which_policy_report(dir.path());
    CHECK(r.find("policy: strict") != std::string::npos);
    CHECK(r.find("SOUL.md directive (comment)") != std::string::npos);
    CHECK(r.find(dir / "SOUL.md") != std::string::npos);
}
