// Host patterns: the relay's entries, OpenShell's globs and credential hosts compared as sets.
#include <catch2/catch.hpp>

#include "common/host_pattern.h"

using namespace toolcage;

TEST_CASE("host patterns overlap when one host name matches both") {
    struct Case {
        const char* a;
        const char* b;
        bool overlap;
    };
    const Case cases[] = {
        {"api.github.com", "api.github.com", true},
        {"api.github.com", "github.com", false},
        {"*.github.com", "api.github.com", true},           // OpenShell's one-label star
        {"api.github.com", "*.github.com", true},           // both ways
        {"*.github.com", "a.b.github.com", false},          // `*` stays inside one label
        {"**.github.com", "a.b.github.com", true},          // the relay's `*.suffix`, any depth
        {"**.github.com", "github.com", false},             // a suffix is not its own subdomain
        {"*.github.com", "*.githubusercontent.com", false},
        {"*-aiplatform.googleapis.com", "us-aiplatform.googleapis.com", true},
        {"*-aiplatform.googleapis.com", "aiplatform.googleapis.com", false},
        {"**.amazonaws.com", "*.s3.amazonaws.com", true},
        {"API.GitHub.com", "api.github.com", true},
    };
    for (const auto& c : cases) {
        INFO(c.a << " vs " << c.b);
        CHECK(host_patterns_overlap(c.a, c.b) == c.overlap);
        CHECK(host_patterns_overlap(c.b, c.a) == c.overlap);
    }
}

TEST_CASE("a pattern covers another only when every host of the other matches it") {
    CHECK(host_pattern_covers("api.anthropic.com", "api.anthropic.com"));
    CHECK(host_pattern_covers("**.github.com", "api.github.com"));
    CHECK(host_pattern_covers("**.github.com", "*.api.github.com"));
    CHECK(host_pattern_covers("*.github.com", "api.github.com"));
    CHECK_FALSE(host_pattern_covers("api.github.com", "*.github.com"));
    CHECK_FALSE(host_pattern_covers("*.github.com", "**.github.com"));
    CHECK_FALSE(host_pattern_covers("**.github.com", "*.githubusercontent.com"));
    CHECK_FALSE(host_pattern_covers("github.com", "api.github.com"));
}

TEST_CASE("the relay's wildcard entry becomes a pattern of any depth") {
    std::string problem;
    auto wild = read_allow_entry("*.github.com", problem);
    REQUIRE(wild);
    CHECK(relay_host_pattern(*wild) == "**.github.com");
    auto exact = read_allow_entry("api.github.com:8443", problem);
    REQUIRE(exact);
    CHECK(relay_host_pattern(*exact) == "api.github.com");
}
