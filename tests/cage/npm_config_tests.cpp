// npm's registry setting read without npm (cage/npm_config.h), against the real
// `npm config get registry` in the same directory with the same environment, case by case:
// each case is a scratch HOME, its npmrc files and variables.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cage/npm_config.h"

namespace fs = std::filesystem;
using namespace toolcage::cage;

namespace {

bool npm_installed() { return ::access("/usr/bin/npm", X_OK) == 0; }

// npm config get registry, run in `cwd` with exactly `env`.
std::string ask_npm(const Environment& env, const std::string& cwd) {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    std::vector<std::string> kv;
    for (const auto& [k, v] : env) kv.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : kv) envp.push_back(s.data());
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::close(p[0]);
        int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) ::dup2(null, 2);  // npm's warnings about the cases' odd files
        if (::chdir(cwd.c_str()) != 0) ::_exit(126);
        char* argv[] = {const_cast<char*>("/usr/bin/npm"), const_cast<char*>("config"),
                        const_cast<char*>("get"), const_cast<char*>("registry"), nullptr};
        ::execve(argv[0], argv, envp.data());
        ::_exit(127);
    }
    ::close(p[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    ::close(p[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

struct Scratch {
    std::string home;
    Scratch() {
        char tmpl[] = "/tmp/toolcage-npmrc-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        home = tmpl;
        fs::create_directories(home + "/proj/sub");
        std::ofstream(home + "/proj/package.json") << "{}\n";
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(home, ec);
    }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories(fs::path(home + "/" + rel).parent_path());
        std::ofstream(home + "/" + rel, std::ios::binary) << text;
    }
};

struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> files;  // relative to HOME
    Environment env;                                        // added to PATH and HOME; $H is HOME
    const char* cwd;                                        // relative to HOME; "/" for the root
};

std::string with_home(std::string s, const std::string& home) {
    for (std::size_t at; (at = s.find("$H")) != std::string::npos;) s.replace(at, 2, home);
    return s;
}

}  // namespace

TEST_CASE("npm's registry setting is read as npm reads it, without npm", "[cage][relay][npm]") {
    if (!npm_installed()) {
        WARN("npm is not installed: skipped");
        return;
    }
    const std::vector<Case> cases = {
        {"npm's default", {}, {}, "proj"},
        {"the user's npmrc", {{".npmrc", "registry=https://user.test.invalid/\n"}}, {}, "proj"},
        {"spaces, quotes, a comment",
         {{".npmrc", "; a comment\n  registry = \"https://quoted.test.invalid/x\"  \n"}},
         {},
         "proj"},
        {"a JSON escape in a quoted value",
         {{".npmrc", "registry=\"https://u\\u002etest.invalid/\\/x\"\n"}},
         {},
         "proj"},
        {"single quotes and an inline comment",
         {{".npmrc", "registry='https://single.test.invalid/'\nfund=false ; no\n"}},
         {},
         "proj"},
        {"cut at an unescaped ; or #",
         {{".npmrc", "registry=https://cut.test.invalid/ ; trailing\n"}},
         {},
         "proj"},
        {"the last line wins, CRLF endings",
         {{".npmrc", "registry=https://first.test.invalid/\r\nregistry=https://last.test.invalid/\r\n"}},
         {},
         "proj"},
        {"a key inside a section is not the top-level one",
         {{".npmrc", "[section]\nregistry=https://section.test.invalid/\n"}},
         {},
         "proj"},
        {"a scoped registry is not the registry",
         {{".npmrc", "@scope:registry=https://scoped.test.invalid/\n"
                     "//scoped.test.invalid/:_authToken=secret\n"}},
         {},
         "proj"},
        {"the project's npmrc over the user's",
         {{".npmrc", "registry=https://user.test.invalid/\n"},
          {"proj/.npmrc", "registry=https://project.test.invalid/\n"}},
         {},
         "proj/sub"},
        {"no package.json: the working directory is the project",
         {{"loose/.npmrc", "registry=https://loose.test.invalid/\n"}},
         {},
         "loose"},
        {"node_modules marks the project",
         {{"nm/node_modules/.keep", ""}, {"nm/.npmrc", "registry=https://nm.test.invalid/\n"}},
         {},
         "nm"},
        {"npm_config_registry over every file",
         {{".npmrc", "registry=https://user.test.invalid/\n"},
          {"proj/.npmrc", "registry=https://project.test.invalid/\n"}},
         {{"npm_config_registry", "https://env.test.invalid/"}},
         "proj"},
        {"NPM_CONFIG_REGISTRY in capitals",
         {{".npmrc", "registry=https://user.test.invalid/\n"}},
         {{"NPM_CONFIG_REGISTRY", "https://caps.test.invalid/"}},
         "proj"},
        {"an empty variable does not count",
         {{".npmrc", "registry=https://user.test.invalid/\n"}},
         {{"npm_config_registry", ""}},
         "proj"},
        {"npm_config_userconfig names the user's npmrc",
         {{".npmrc", "registry=https://user.test.invalid/\n"},
          {"alt.npmrc", "registry=https://alt.test.invalid/\n"}},
         {{"npm_config_userconfig", "$H/alt.npmrc"}},
         "proj"},
        {"npm_config_userconfig with ~/",
         {{"alt2.npmrc", "registry=https://tilde.test.invalid/\n"}},
         {{"npm_config_userconfig", "~/alt2.npmrc"}},
         "proj"},
        {"npm_config_globalconfig",
         {{"g.npmrc", "registry=https://global.test.invalid/\n"}},
         {{"npm_config_globalconfig", "$H/g.npmrc"}},
         "proj"},
        {"the user's over the global one",
         {{".npmrc", "registry=https://user.test.invalid/\n"},
          {"g.npmrc", "registry=https://global.test.invalid/\n"}},
         {{"npm_config_globalconfig", "$H/g.npmrc"}},
         "proj"},
        {"globalconfig named in the user's npmrc",
         {{".npmrc", "globalconfig=$H/g2.npmrc\n"}, {"g2.npmrc", "registry=https://g2.test.invalid/\n"}},
         {},
         "proj"},
        {"PREFIX moves the global npmrc",
         {{"pfx/etc/npmrc", "registry=https://prefix.test.invalid/\n"}},
         {{"PREFIX", "$H/pfx"}},
         "proj"},
        {"prefix in the user's npmrc moves the global npmrc",
         {{".npmrc", "prefix=$H/pfx2\n"}, {"pfx2/etc/npmrc", "registry=https://prefix2.test.invalid/\n"}},
         {},
         "proj"},
        {"${VAR} from the environment, ${UNSET?} empty, \\${VAR} as written",
         {{".npmrc", "registry=https://${REG_HOST}${UNSET?}/a/\\${REG_HOST}\n"}},
         {{"REG_HOST", "var.test.invalid"}},
         "proj"},
        {"${UNSET} stays as written",
         {{".npmrc", "registry=https://${UNSET_HOST_X}/\n"}},
         {},
         "proj"},
        {"global mode ignores the project's npmrc",
         {{".npmrc", "registry=https://user.test.invalid/\n"},
          {"proj/.npmrc", "registry=https://project.test.invalid/\n"}},
         {{"npm_config_global", "true"}},
         "proj"},
        {"location=global ignores the project's npmrc",
         {{"proj/.npmrc", "registry=https://project.test.invalid/\n"}},
         {{"npm_config_location", "global"}},
         "proj"},
        {"HOME is the project: its npmrc is read once, as the user's",
         {{".npmrc", "registry=https://home.test.invalid/\n"}, {"package.json", "{}\n"}},
         {},
         "."},
        {"run from / (as toolcage runs it)",
         {{".npmrc", "registry=https://from-root.test.invalid/\n"}},
         {},
         "/"},
    };
    for (const auto& c : cases) {
        Scratch s;
        for (const auto& [rel, text] : c.files) s.write(rel, with_home(text, s.home));
        Environment env = {{"PATH", "/usr/bin:/bin"}, {"HOME", s.home}};
        for (const auto& [k, v] : c.env) env[k] = with_home(v, s.home);
        std::string cwd = std::string(c.cwd) == "/" ? "/" : s.home + "/" + c.cwd;
        fs::create_directories(cwd);
        INFO(c.name);
        std::string npm = ask_npm(env, cwd);
        NpmRegistry mine = npm_registry_setting(env, cwd);
        REQUIRE(mine.known);
        REQUIRE(mine.url);
        CHECK(*mine.url == npm);
    }
}

TEST_CASE("npm not on PATH: no registry, and no guess", "[cage][relay][npm]") {
    NpmRegistry r = npm_registry_setting({{"PATH", "/nonexistent"}, {"HOME", "/nonexistent"}});
    CHECK(r.known);
    CHECK_FALSE(r.url);
}

TEST_CASE("an npm this reader does not know is left to npm itself", "[cage][relay][npm]") {
    char tmpl[] = "/tmp/toolcage-npmbin-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    std::string dir = tmpl;
    std::ofstream(dir + "/npm") << "#!/bin/sh\necho https://wrapper.test.invalid/\n";
    fs::permissions(dir + "/npm", fs::perms::owner_all);
    NpmRegistry r = npm_registry_setting({{"PATH", dir}, {"HOME", dir}});
    fs::remove_all(dir);
    CHECK_FALSE(r.known);
}
