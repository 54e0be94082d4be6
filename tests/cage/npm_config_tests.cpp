// The registry the relay allows for {npm_registry} (cage/settings/npm_config.h): read from the
// user's own ~/.npmrc and the global npmrc only, never from a variable the agent's shell could have
// set, and npm is never run. Each case is a scratch home and global file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cage/relay_launch.h"
#include "cage/settings/npm_config.h"
#include "common/user_home.h"

namespace fs = std::filesystem;
using namespace toolcage::cage;

namespace {

struct Scratch {
    std::string dir;
    Scratch() {
        char tmpl[] = "/tmp/toolcage-npmrc-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        dir = tmpl;
        fs::create_directories(dir + "/home");
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string home() const { return dir + "/home"; }
    std::string global() const { return dir + "/npmrc"; }
    void write(const std::string& path, const std::string& text) const { std::ofstream(path, std::ios::binary) << text; }
};

}  // namespace

TEST_CASE("npm's registry comes from the user's npmrc, else the global one, else npm's default",
          "[cage][relay][npm]") {
    Scratch s;
    CHECK(npm_registry_from_files(s.home(), s.global()) == kNpmDefaultRegistry);
    s.write(s.global(), "registry=https://global.test.invalid/\n");
    CHECK(npm_registry_from_files(s.home(), s.global()) == "https://global.test.invalid/");
    s.write(s.home() + "/.npmrc", "; a comment\nregistry = \"https://user.test.invalid:8443/\"\n"
                                  "[section]\nregistry=https://section.test.invalid/\n");
    CHECK(npm_registry_from_files(s.home(), s.global()) == "https://user.test.invalid:8443/");
    // A ${VAR} is not filled from the environment: it stays as written, and names no host.
    ::setenv("TOOLCAGE_TEST_REG", "attacker.test.invalid", 1);
    s.write(s.home() + "/.npmrc", "registry=https://${TOOLCAGE_TEST_REG}/\n");
    std::string got = npm_registry_from_files(s.home(), s.global());
    ::unsetenv("TOOLCAGE_TEST_REG");
    CHECK(got == "https://${TOOLCAGE_TEST_REG}/");
    CHECK_FALSE(registry_allow_entry(got));
    // No home: the global file.
    CHECK(npm_registry_from_files("", s.global()) == "https://global.test.invalid/");
}

TEST_CASE("npm's variables and a userconfig they name have no say", "[cage][relay][npm][trust]") {
    Scratch s;
    s.write(s.dir + "/attacker.npmrc", "registry=https://attacker-file.test.invalid/\n");
    const std::string before = *npm_config_registry();
    const char* h = std::getenv("HOME");
    const std::string saved_home = h ? h : "";
    for (const char* k : {"npm_config_registry", "NPM_CONFIG_REGISTRY", "npm_config_userconfig",
                          "NPM_CONFIG_USERCONFIG", "npm_config_globalconfig", "HOME", "PREFIX", "NODE_OPTIONS"}) {
        std::string v = std::string(k).find("config") != std::string::npos && std::string(k).find("registry") == std::string::npos
                            ? s.dir + "/attacker.npmrc"
                            : std::string(k) == "HOME" ? s.dir : "https://attacker-env.test.invalid/";
        ::setenv(k, v.c_str(), 1);
    }
    std::string after = *npm_config_registry();
    for (const char* k : {"npm_config_registry", "NPM_CONFIG_REGISTRY", "npm_config_userconfig",
                          "NPM_CONFIG_USERCONFIG", "npm_config_globalconfig", "PREFIX", "NODE_OPTIONS"})
        ::unsetenv(k);
    if (h)
        ::setenv("HOME", saved_home.c_str(), 1);
    else
        ::unsetenv("HOME");
    CHECK(after == before);
    CHECK(after == npm_registry_from_files(toolcage::user_home()));
    CHECK(after.find("attacker") == std::string::npos);
}
