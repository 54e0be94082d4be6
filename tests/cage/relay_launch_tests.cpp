// What `toolcage run` gives the relay: the allowlist with {npm_registry} filled from the
// launcher's npm, the launcher's proxy as upstream. Tables of cases, and npm for real.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cage/relay_launch.h"

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

TEST_CASE("the upstream is the launcher's https_proxy, HTTPS_PROXY or http_proxy",
          "[cage][relay]") {
    CHECK(upstream_from_environment({}).empty());
    CHECK(upstream_from_environment({{"HTTP_PROXY", "http://p:1"}}).empty());
    CHECK(upstream_from_environment({{"http_proxy", "http://p:1"}}) == "http://p:1");
    CHECK(upstream_from_environment(
              {{"http_proxy", "http://p:1"}, {"HTTPS_PROXY", "http://q:2"}}) == "http://q:2");
    CHECK(upstream_from_environment(
              {{"https_proxy", "http://r:3"}, {"HTTPS_PROXY", "http://q:2"}}) == "http://r:3");
    CHECK(upstream_from_environment({{"https_proxy", "proxy.test:3128"}}) ==
          "http://proxy.test:3128");
    CHECK(upstream_from_environment({{"https_proxy", "  "}, {"http_proxy", "http://p:1"}}) ==
          "http://p:1");
}

TEST_CASE("relay defaults come from the launcher's environment", "[cage][relay]") {
    RelayLaunchConfig c = relay_launch_defaults(
        {{"XDG_STATE_HOME", "/dev/null/state"}, {"https_proxy", "http://p.test:8"}});
    CHECK(fs::path(c.relay_binary).filename() == "toolcage-relay");
    CHECK(c.log_path.empty());  // the state directory cannot be made
    CHECK(c.upstream == "http://p.test:8");
    CHECK(c.token_base == "/tmp");

    char tmpl[] = "/tmp/toolcage-defaults-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    RelayLaunchConfig d = relay_launch_defaults({{"HOME", tmpl}, {"XDG_RUNTIME_DIR", tmpl}});
    CHECK(d.log_path == std::string(tmpl) + "/.local/state/toolcage/relay.jsonl");
    CHECK((fs::status(std::string(tmpl) + "/.local/state/toolcage").permissions() &
           fs::perms::all) == fs::perms::owner_all);
    CHECK(d.token_base == tmpl);
    fs::remove_all(tmpl);
}

// npm for real: the user's configuration counts, an .npmrc in the working directory (the
// workspace, which the cage can write) does not.
TEST_CASE("npm config get registry is read from the launcher's configuration, not the workspace",
          "[cage][relay][npm]") {
    if (::access("/usr/bin/npm", X_OK) != 0) {
        WARN("npm is not installed: skipped");
        return;
    }
    char tmpl[] = "/tmp/toolcage-npm-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string home = tmpl;
    fs::create_directories(home + "/ws");
    std::ofstream(home + "/.npmrc") << "registry=https://user-registry.test.invalid:8443/\n";
    std::ofstream(home + "/ws/.npmrc") << "registry=https://workspace-registry.test.invalid/\n";
    std::ofstream(home + "/ws/package.json") << "{}\n";

    const char* old_home = std::getenv("HOME");
    std::string saved_home = old_home ? old_home : "";
    auto old_cwd = fs::current_path();
    ::setenv("HOME", home.c_str(), 1);
    fs::current_path(home + "/ws");
    auto got = npm_config_registry();
    fs::current_path(old_cwd);
    if (old_home)
        ::setenv("HOME", saved_home.c_str(), 1);
    else
        ::unsetenv("HOME");
    fs::remove_all(home);

    REQUIRE(got);
    CHECK(registry_allow_entry(*got) ==
          std::optional<std::string>("user-registry.test.invalid:8443"));
}
