#include <catch2/catch.hpp>

#include "cage/environment.h"

using namespace toolcage::cage;

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
                         {"HOME", "/home/u"},
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
