// Targets, allowlist entries and their matching.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "relay/allowlist.h"
#include "relay/target.h"

using namespace toolcage::relay;

static Allowlist list_of(std::vector<std::string> e) { return Allowlist::parse(e, "--allow"); }

static std::optional<std::string> refusal(const Allowlist& l, const std::string& target) {
    auto t = parse_target(target);
    REQUIRE(t.target);
    return l.refusal(*t.target);
}

TEST_CASE("target parser refuses what is not exactly host:port") {
    const char* bad[] = {
        "user:pass@a.example.com:443", "a.example.com%2e:443", "[fe80::1%25eth0]:443",
        "[fe80::1%eth0]:443",          "a.example.com/x:443",  "a.example.com:443/",
        "a\\b.example.com:443",        "a.example.com",        "a.example.com:",
        "a.example.com:0",             "a.example.com:65536",  "a.example.com:0443",
        "a.example.com:+443",          "a..example.com:443",   ".a.example.com:443",
        "::1:443",                     "[::1]",                "[nothex]:443",
        "a b:443",                     "caf\xc3\xa9.example.com:443", "-a.example.com:443",
        "a.example.com.:443.",         "a_b.example.com:44 3", "a.example.com:443#x",
    };
    for (const char* t : bad) {
        INFO(t);
        CHECK_FALSE(parse_target(t).target);
    }
}

TEST_CASE("target host is canonicalised: lowercase, one trailing dot dropped") {
    auto t = parse_target("API.Example.COM.:443");
    REQUIRE(t.target);
    CHECK(t.target->host == "api.example.com");
    CHECK(t.target->port == 443);
    CHECK_FALSE(t.target->ip_literal);
    CHECK_FALSE(parse_target("api.example.com..:443").target);
}

TEST_CASE("IP literals are recognised in every spelling") {
    struct {
        const char* text;
        bool canonical;
    } cases[] = {
        {"127.0.0.1:443", true},   {"127.1:443", false},       {"2130706433:443", false},
        {"0x7f.1:443", false},     {"0x7f000001:443", false},  {"0177.0.0.1:443", false},
        {"127.0.0.1.:443", false}, {"[::1]:443", true},        {"[::ffff:127.0.0.1]:443", true},
        {"[0:0:0:0:0:0:0:1]:443", false}, {"1.2.3.4.5:443", false}, {"0x7f:443", false},
        {"[::FFFF:7f00:1]:443", false},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto t = parse_target(c.text);
        REQUIRE(t.target);
        CHECK(t.target->ip_literal);
        CHECK(t.target->canonical_ip == c.canonical);
    }
}

TEST_CASE("relay refuses CONNECT to an IP literal unless an entry names that address") {
    auto l = list_of({"api.example.com", "127.0.0.1:8443", "[::1]:8443"});
    CHECK_FALSE(refusal(l, "127.0.0.1:8443"));
    CHECK_FALSE(refusal(l, "[::1]:8443"));
    CHECK(refusal(l, "127.0.0.1:443"));  // other port
    for (const char* spelled : {"127.1:8443", "2130706433:8443", "0x7f.1:8443", "0177.0.0.1:8443",
                                "127.0.0.1.:8443", "[::ffff:127.0.0.1]:8443",
                                "[0:0:0:0:0:0:0:1]:8443", "10.0.0.1:443"}) {
        INFO(spelled);
        CHECK(refusal(l, spelled));
    }
}

TEST_CASE("a wildcard matches on label boundaries only") {
    auto l = list_of({"*.example.com"});
    CHECK_FALSE(refusal(l, "a.example.com:443"));
    CHECK_FALSE(refusal(l, "a.b.example.com:443"));
    CHECK_FALSE(refusal(l, "A.EXAMPLE.COM.:443"));
    CHECK(refusal(l, "example.com:443"));
    CHECK(refusal(l, "evilexample.com:443"));
    CHECK(refusal(l, "example.com.evil.net:443"));
    CHECK(refusal(l, "a.example.com.evil.net:443"));
    CHECK(refusal(l, "a.example.com:8443"));
    CHECK(refusal(l, "a.example.co:443"));
}

TEST_CASE("entries: port defaults to 443, names are canonical") {
    auto l = list_of({"Api.Example.com.", "git.example.com:22", "*.cdn.example.net:8443"});
    CHECK_FALSE(refusal(l, "api.example.com:443"));
    CHECK(refusal(l, "api.example.com:80"));
    CHECK_FALSE(refusal(l, "git.example.com:22"));
    CHECK(refusal(l, "git.example.com:443"));
    CHECK_FALSE(refusal(l, "x.cdn.example.net:8443"));
}

TEST_CASE("bad allowlist entries are refused when the list is loaded, naming the fix") {
    const char* bad[] = {"*",           "**",       "*.com",        "*.com:443",
                         "*example.com", "a.*.com", "**.example.com", "127.1",
                         "2130706433",  "*.1.2.3",  "[::ffff:7f00:1]", "::1",
                         "[fe80::1%eth0]", "a.example.com:0", "a.example.com:x", "",
                         "a..b",        "a b.com",  "exa$mple.com",  "10.0.0.1.:443"};
    for (const char* e : bad) {
        INFO(e);
        CHECK_THROWS_AS(parse_allow_entry(e, "--allow"), toolcage::Error);
    }
    try {
        parse_allow_entry("*.com", "--allow");
        FAIL("no error");
    } catch (const toolcage::Error& e) {
        CHECK(std::string(e.what()) ==
              "--allow \"*.com\": a wildcard must name at least two labels (use *.example.com)");
    }
}
