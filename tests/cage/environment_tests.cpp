#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "cage/settings/environment.h"

using namespace toolcage::cage;
namespace fs = std::filesystem;

TEST_CASE("the keep-list: built-in names, LC_*, env_keep with prefixes", "[cage][env]") {
    for (const char* k : {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM",
                          "TZ", "SHELL", "PWD"})
        CHECK(is_kept_variable(k, {}));
    for (const char* k : {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "LD_PRELOAD", "SSH_AUTH_SOCK",
                          "HTTPS_PROXY", "PYTHONPATH", "LC", "XLC_ALL"})
        CHECK_FALSE(is_kept_variable(k, {}));
    CHECK(is_kept_variable("CARGO_HOME", {"CARGO_*"}));
    CHECK(is_kept_variable("CI", {"CI"}));
    CHECK_FALSE(is_kept_variable("CIX", {"CI"}));
}

TEST_CASE("PATH keeps only what the cage may execute; a default when nothing is left",
          "[cage][env]") {
    std::vector<std::string> exec = {"/usr", "/bin", "/opt"};
    CHECK(filter_path("/root/.venv/bin:/usr/bin:/bin", exec) == "/usr/bin:/bin");
    CHECK(filter_path("bin:.::/usr/local/bin", exec) == "/usr/local/bin");
    CHECK(filter_path("/home/x/bin", exec) == "/usr/local/bin:/usr/bin:/bin");
    CHECK(filter_path("", exec) == "/usr/local/bin:/usr/bin:/bin");
    CHECK(filter_path("/usrx/bin:/usr/bin/../sbin", exec) == "/usr/bin/../sbin");
}

TEST_CASE("the environment is rebuilt from scratch", "[cage][env]") {
    Environment outer = {{"PATH", "/venv/bin:/usr/bin"},
                         {"HOME", "/work/repo/fake-home"},  // the agent's shell's, never passed on
                         {"LANG", "openshell:resolve:env:LANG"},
                         {"TERM", "xterm"},
                         {"GITHUB_TOKEN", "ghp_x"},
                         {"HTTPS_PROXY", "http://elsewhere:3128"},
                         {"KEEPME", "openshell:resolve:env:SECRET"}};
    EnvironmentSpec spec;
    spec.env_keep = {"KEEPME"};
    spec.env_set = {{"CI", "1"}, {"BAD", "openshell:resolve:env:X"}};
    spec.execute = {"/usr"};
    spec.workdir = "/w";
    spec.tmpdir = "/tmp/toolcage-abc";
    spec.home = "/home/u";  // the user database's
    Environment env = build_environment(outer, spec);
    CHECK(env == Environment{{"CI", "1"},
                             {"HOME", "/home/u"},
                             {"PATH", "/usr/bin"},
                             {"PWD", "/w"},
                             {"TERM", "xterm"},
                             {"TMPDIR", "/tmp/toolcage-abc"}});

    spec.relay_url = "http://127.0.0.1:4444";
    env = build_environment(outer, spec);
    for (const char* k : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"})
        CHECK(env[k] == "http://127.0.0.1:4444");
    CHECK(env["NO_PROXY"] == "localhost,127.0.0.1,::1");
    CHECK(env["no_proxy"] == "localhost,127.0.0.1,::1");
}

TEST_CASE("the launcher's proxy settings never reach the step, whatever env_keep says",
          "[cage][env]") {
    Environment outer = {{"PATH", "/usr/bin"},
                         {"https_proxy", "http://user:secret@proxy:3128"},
                         {"ALL_PROXY", "socks5://user:secret@proxy:1080"},
                         {"npm_config_https_proxy", "http://user:secret@proxy:3128"},
                         {"no_proxy", "internal"},
                         {"KEEP", "1"}};
    EnvironmentSpec spec;
    spec.env_keep = {"*"};
    spec.execute = {"/usr"};
    Environment env = build_environment(outer, spec);
    CHECK(env.count("https_proxy") == 0);
    CHECK(env.count("ALL_PROXY") == 0);
    CHECK(env.count("npm_config_https_proxy") == 0);
    CHECK(env["no_proxy"] == "internal");
    CHECK(env["KEEP"] == "1");
    spec.relay_url = "http://toolcage:t@127.0.0.1:4444";
    env = build_environment(outer, spec);
    CHECK(env["https_proxy"] == "http://toolcage:t@127.0.0.1:4444");
    CHECK(env.count("ALL_PROXY") == 0);
}

// PATH entries and execute roots are compared with their symlinks resolved, as
// std::filesystem::weakly_canonical resolves them (an absent tail kept as written).
TEST_CASE("PATH filtering resolves symlinks as weakly_canonical does", "[cage][env]") {
    char tmpl[] = "/tmp/toolcage-envlinks-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    const fs::path t = tmpl;
    fs::create_directories(t / "real/bin");
    fs::create_directories(t / "a/b");
    fs::create_directories(t / "x");
    fs::create_symlink("../real", t / "a/lnk");             // relative
    fs::create_symlink(t / "real/bin", t / "abs");          // absolute
    fs::create_symlink("loop1", t / "loop2");               // a loop
    fs::create_symlink("loop2", t / "loop1");
    fs::create_symlink("nowhere", t / "dangling");
    const std::string T = t.string();
    auto weakly = [](const std::string& p) {
        std::error_code ec;
        auto r = fs::weakly_canonical(p, ec);
        return ec ? fs::path(p).lexically_normal().string() : r.string();
    };
    auto under = [](const std::string& p, const std::string& d) {
        return d == "/" || p == d || (p.size() > d.size() && p.compare(0, d.size(), d) == 0 && p[d.size()] == '/');
    };
    const std::vector<std::string> entries = {
        T + "/a/lnk/bin", T + "/abs", T + "/abs/../x", T + "/a/lnk/../x", T + "/loop1/bin",
        T + "/dangling/bin", T + "/a/b/../../real", T + "/nope/../real/bin", T + "/a/lnk/bin/",
        T + "/a//b/./", "/proc/self/root/usr/bin", "/usr/bin/../sbin", "/"};
    const std::vector<std::vector<std::string>> roots = {
        {T + "/real"}, {T + "/a"}, {T + "/abs"}, {T + "/loop1"}, {T + "/dangling"}, {"/usr"}, {"/"}};
    for (const auto& r : roots) {
        for (const auto& e : entries) {
            std::string want;
            for (const auto& root : r)
                if (under(weakly(e), weakly(root))) want = e;
            if (want.empty()) want = "/usr/local/bin:/usr/bin:/bin";
            INFO(e << " under " << r[0]);
            CHECK(filter_path(e, r) == want);
        }
    }
    fs::remove_all(t);
}
