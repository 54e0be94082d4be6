// What `toolcage run` gives the relay: the allowlist with {npm_registry} filled from the
// user's own npmrc, the policy's upstream alone. Tables of cases.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cage/relay_launch.h"
#include "common/user_home.h"

using namespace toolcage::cage;
namespace fs = std::filesystem;

TEST_CASE("a registry URL becomes an allow entry: host, and the port when it is not the default",
          "[cage][relay]") {
    struct Case {
        const char* url;
        const char* entry;  // nullptr: refused
    };
    const Case cases[] = {
        {"https://registry.test.invalid/", "registry.test.invalid"},
        {"https://registry.test.invalid", "registry.test.invalid"},
        {"HTTPS://Registry.Test.Invalid/npm/", "registry.test.invalid"},
        {"https://registry.test.invalid:443/", "registry.test.invalid"},
        {"https://registry.test.invalid:8443/path?x#y", "registry.test.invalid:8443"},
        {"http://mirror.test.invalid/", "mirror.test.invalid:80"},
        {"http://mirror.test.invalid:4873/", "mirror.test.invalid:4873"},
        {"https://user:secret@registry.test.invalid/", "registry.test.invalid"},
        {"https://[::1]:4873/", "[::1]:4873"},
        {"registry.test.invalid", nullptr},
        {"ftp://registry.test.invalid/", nullptr},
        {"https:///", nullptr},
        {"https://host:0/", nullptr},
        {"https://host:99999/", nullptr},
        {"https://host:12ab/", nullptr},
        {"https://ho st/", nullptr},
        {"https://[::1/", nullptr},
        {"undefined", nullptr},
        {"", nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.url);
        auto got = registry_allow_entry(c.url);
        if (c.entry)
            CHECK(got == std::optional<std::string>(c.entry));
        else
            CHECK_FALSE(got);
    }
}

TEST_CASE(
    "{npm_registry} is filled once, only when present, and dropped with a note when npm "
    "has no answer",
    "[cage][relay]") {
    int asked = 0;
    auto npm = [&]() -> std::optional<std::string> {
        ++asked;
        return "https://registry.test.invalid:8443/";
    };
    std::vector<std::string> notes;
    auto out =
        expand_relay_allow({"a.test", "{npm_registry}", "b.test", "{npm_registry}"}, npm, notes);
    CHECK(out == std::vector<std::string>{"a.test", "registry.test.invalid:8443", "b.test",
                                          "registry.test.invalid:8443"});
    CHECK(asked == 1);
    CHECK(notes.empty());

    asked = 0;
    out = expand_relay_allow({"a.test"}, npm, notes);
    CHECK(out == std::vector<std::string>{"a.test"});
    CHECK(asked == 0);  // npm is not run without the placeholder

    auto missing = []() -> std::optional<std::string> { return std::nullopt; };
    out = expand_relay_allow({"{npm_registry}", "a.test"}, missing, notes);
    CHECK(out == std::vector<std::string>{"a.test"});
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("{npm_registry} dropped") != std::string::npos);

    notes.clear();
    auto odd = []() -> std::optional<std::string> { return "file:///tmp/reg"; };
    out = expand_relay_allow({"{npm_registry}"}, odd, notes);
    CHECK(out.empty());
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("file:///tmp/reg") != std::string::npos);
}

TEST_CASE("relay defaults come from the user database and the policy, not the environment", "[cage][relay]") {
    ::setenv("XDG_STATE_HOME", "/tmp/toolcage-not-state", 1);
    ::setenv("https_proxy", "http://p.test:8", 1);
    ::setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    RelayLaunchConfig c = relay_launch_defaults();
    ::unsetenv("XDG_STATE_HOME");
    ::unsetenv("https_proxy");
    ::unsetenv("XDG_RUNTIME_DIR");
    CHECK(fs::path(c.relay_binary).filename() == "toolcage-relay");
    CHECK(c.log_path == toolcage::state_dir(false) + "/relay.jsonl");
    CHECK(c.token_base != "/tmp/toolcage-not-state");
    CHECK_FALSE(fs::exists("/tmp/toolcage-not-state"));
}
