// The step's own git, npm and pip settings (cage/settings/step_settings.h): the user's inert keys
// kept, every credential left out; then a real caged step on a home holding tokens, as root and as
// nobody, that commits with the user's identity and finds no token anywhere it can look.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cage/settings/step_settings.h"
#include "common/git_config.h"
#include "step_harness.h"
#include "tests/other_user.h"

namespace fs = std::filesystem;
using toolcage::cage::has_userinfo;
using toolcage::cage::step_git_config;
using toolcage::cage::step_npmrc;
using toolcage::cage::step_pip_conf;

namespace {

const char* kMark = "SETTINGSSECRET";

const std::string kGitconfig = R"([user]
	name = Erin Example
	email = erin@example.org
	signingkey = SETTINGSSECRETsigning
[init]
	defaultBranch = trunk
[alias]
	st = status --short
	lg = "log --graph --format=\"%h %s\""
	sh = !echo hi
	pushtok = push https://erin:SETTINGSSECRETalias@git.example.org/x.git
[core]
	autocrlf = input
	sshCommand = ssh -i ~/.ssh/SETTINGSSECRETkey
	fsmonitor = /usr/local/bin/SETTINGSSECRETmonitor
	hooksPath = ~/hooks
	excludesFile = ~/.gitignore_global
	pager = less -R
[credential]
	helper = store
	helper = "!f() { echo password=SETTINGSSECREThelper; }; f"
[credential "https://github.com"]
	username = erin
[url "https://x-access-token:SETTINGSSECRETurl@github.com/"]
	insteadOf = https://github.com/
[url "git@github.com:"]
	pushInsteadOf = https://github.com/
[http "https://github.com/"]
	extraHeader = Authorization: Bearer SETTINGSSECRETheader
[http]
	proxy = http://user:SETTINGSSECRETproxy@proxy:3128
[include]
	path = ~/.gitconfig-SETTINGSSECRETinclude
[includeIf "gitdir:~/work/"]
	path = ~/.gitconfig-work
[gpg]
	program = /usr/bin/SETTINGSSECRETgpg
[commit]
	gpgsign = true
	template = ~/.gitmessage
[pull]
	rebase = true
[color "diff"]
	meta = yellow bold
[protocol "ext"]
	allow = always
)";

std::vector<std::string> keys_of(const std::string& config) {
    std::vector<std::string> keys;
    REQUIRE(toolcage::gitconfig::parse(config, [&](const toolcage::gitconfig::Entry& e) {
        keys.push_back(toolcage::gitconfig::key_text(e) + "=" + e.value);
    }));
    return keys;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_CASE("has_userinfo finds a URL's userinfo anywhere in a value", "[cage][settings]") {
    CHECK(has_userinfo("https://erin:tok@github.com/"));
    CHECK(has_userinfo("https://tok@github.com"));
    CHECK(has_userinfo("push https://a:b@h/x.git --force"));
    CHECK(has_userinfo("git+ssh://git@github.com/a/b"));
    CHECK_FALSE(has_userinfo("https://github.com/a@b"));
    CHECK_FALSE(has_userinfo("https://registry.npmjs.org/"));
    CHECK_FALSE(has_userinfo("erin@example.org"));
}

TEST_CASE("the step's git config keeps the inert keys and nothing that holds or runs a credential",
          "[cage][settings]") {
    std::string out = step_git_config({kGitconfig});
    INFO(out);
    CHECK(out.find(kMark) == std::string::npos);
    auto keys = keys_of(out);
    CHECK(has(keys, "user.name=Erin Example"));
    CHECK(has(keys, "user.email=erin@example.org"));
    CHECK(has(keys, "init.defaultbranch=trunk"));
    CHECK(has(keys, "alias.st=status --short"));
    CHECK(has(keys, "alias.lg=log --graph --format=\"%h %s\""));
    CHECK(has(keys, "alias.sh=!echo hi"));  // runs inside the cage, as the git that reads it
    CHECK(has(keys, "core.autocrlf=input"));
    CHECK(has(keys, "pull.rebase=true"));
    CHECK(has(keys, "color.diff.meta=yellow bold"));
    for (const auto& k : keys) {
        INFO(k);
        for (const char* never : {"credential", "url.", "http", "include", "sshcommand", "gpg",
                                  "signingkey", "fsmonitor", "hookspath", "excludesfile", "pager",
                                  "template", "protocol"})
            CHECK(k.find(never) == std::string::npos);
    }
    CHECK(keys.size() == 9);  // alias.pushtok carries a token in its URL: left out
}

TEST_CASE("the step's git config: files in order, an unreadable one left out, values written back exactly",
          "[cage][settings]") {
    std::string xdg = "[user]\n\tname = From XDG\n[alias]\n\tco = checkout\n";
    std::string home = "[user]\n\tname = From Home\n";
    auto keys = keys_of(step_git_config({xdg, home}));
    REQUIRE(keys.size() == 3);
    CHECK(keys[0] == "user.name=From XDG");
    CHECK(keys[2] == "user.name=From Home");  // git reads ~/.gitconfig last: it wins
    // A file git itself could not read gives nothing (fail closed), the others still count.
    CHECK(keys_of(step_git_config({"[user\n\tname = x\n", home})) ==
          std::vector<std::string>{"user.name=From Home"});
    // Quotes, backslashes, tabs, comment characters and leading blanks survive the round trip.
    std::string odd = "[alias]\n\tx = \"  a \\\"q\\\" \\\\ ; # \\t end\"\n[color \"sub \\\"q\\\"\"]\n\tslot = red\n";
    auto in = keys_of(odd);
    CHECK(keys_of(step_git_config({odd})) == in);
}

TEST_CASE("the step's npmrc keeps registries and switches, never a token", "[cage][settings]") {
    const std::string npmrc =
        "registry=https://npm.example.org/\n"
        "@erin:registry=https://npm.erin.example/\n"
        "@erin:_authToken=SETTINGSSECRETscope\n"
        "//npm.example.org/:_authToken=SETTINGSSECRETtoken\n"
        "//npm.example.org/:_password=SETTINGSSECRETpass\n"
        "_auth=SETTINGSSECRETauth\n"
        "_authToken=SETTINGSSECRETbare\n"
        "username=erin\n"
        "email=erin@example.org\n"
        "certfile=/home/erin/SETTINGSSECRETcert.pem\n"
        "keyfile=/home/erin/SETTINGSSECRETkey.pem\n"
        "https-proxy=http://u:SETTINGSSECRETproxy@proxy:3128\n"
        "script-shell=/bin/SETTINGSSECRETshell\n"
        "fund=false\n"
        "save-exact\n"
        "init-author-name=\"Erin ; Example\"\n"
        "loglevel=${LOGLEVEL}\n"
        "[section]\n"
        "registry=https://ignored.example/\n";
    std::string out = step_npmrc(npmrc);
    INFO(out);
    CHECK(out.find(kMark) == std::string::npos);
    CHECK(out ==
          "@erin:registry=https://npm.erin.example/\n"
          "fund=false\n"
          "init-author-name=\"Erin ; Example\"\n"
          "registry=https://npm.example.org/\n"
          "save-exact=true\n");
    // A registry with userinfo is left out; a ${VAR} is never filled from the caller's
    // environment (the agent's shell's): the value is left out.
    CHECK(step_npmrc("registry=https://u:SETTINGSSECRET@npm.example.org/\n").empty());
    ::setenv("NPM_REG", "https://attacker.example/", 1);
    CHECK(step_npmrc("registry=${NPM_REG}\n").empty());
    ::unsetenv("NPM_REG");
}

TEST_CASE("the step's pip.conf keeps index URLs without userinfo and install switches", "[cage][settings]") {
    std::string legacy = "[global]\ntimeout = 10\nindex-url = https://legacy.example/simple\n";
    std::string xdg =
        "[global]\n"
        "index-url = https://erin:SETTINGSSECRETpip@pypi.example.org/simple\n"
        "extra-index-url =\n"
        "    https://mirror.example/simple\n"
        "    https://u:SETTINGSSECRETextra@private.example/simple\n"
        "timeout = 30\n"
        "client-cert = /home/erin/SETTINGSSECRET.pem\n"
        "proxy = http://u:SETTINGSSECRETproxy@proxy:3128\n"
        "[install]\n"
        "trusted_host = mirror.example\n";
    std::string out = step_pip_conf({legacy, xdg});
    INFO(out);
    CHECK(out.find(kMark) == std::string::npos);
    CHECK(out ==
          "[global]\n"
          "extra-index-url = https://mirror.example/simple\n"
          "index-url = https://legacy.example/simple\n"
          "timeout = 30\n"
          "[install]\n"
          "trusted-host = mirror.example\n");
}

namespace {

struct Home {
    std::string base, home, ws;
    Home() {
        char tmpl[] = "/tmp/toolcage-settings-XXXXXX";  // a home under /tmp, as on CI runners
        REQUIRE(::mkdtemp(tmpl));
        base = tmpl;
        home = base + "/home";
        ws = base + "/ws";
        for (const auto& d : {home + "/.config/git", home + "/.config/pip", home + "/.ssh",
                              home + "/.cargo", ws, base + "/log"})
            fs::create_directories(d);
        write(".gitconfig", kGitconfig);
        write(".config/git/config", "[alias]\n\tco = checkout\n");
        write(".gitignore_global", "*.log\n");        // core.excludesFile names it
        write(".config/git/ignore", "*.never\n");       // git stops when it cannot read one
        write(".config/git/attributes", "*.bin binary\n");
        write(".git-credentials", "https://erin:SETTINGSSECRETcreds@github.com\n");
        write(".npmrc", "//registry.npmjs.org/:_authToken=SETTINGSSECRETnpm\nfund=false\n");
        write(".pypirc", "[pypi]\npassword = SETTINGSSECRETpypirc\n");
        write(".config/pip/pip.conf", "[global]\nindex-url = https://u:SETTINGSSECRETpip@p.example/simple\n");
        write(".cargo/credentials.toml", "[registry]\ntoken = \"SETTINGSSECRETcargo\"\n");
        write(".ssh/id_ed25519", "SETTINGSSECRETsshkey\n");
        // Readable by nobody too: what keeps them from the step is the cage, not their mode.
        steptest::open_to_everyone(base);
    }
    ~Home() {
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    void write(const std::string& rel, const std::string& text) const { std::ofstream(home + "/" + rel) << text; }
};

}  // namespace

TEST_CASE("the step's settings from a home with tokens: the user's identity and aliases, no token",
          "[cage][settings]") {
    // `toolcage run` takes the home from the user database (its own runs are checked against
    // the real home in tests/integrity/launcher_env_tests.cpp); here the same function is given
    // a scratch home full of tokens.
    Home h;
    const std::string tmp = h.base + "/steptmp";
    fs::create_directories(tmp);
    toolcage::cage::Environment env;
    toolcage::cage::add_step_settings(h.home, tmp, {}, env);
    auto read = [](const std::string& p) {
        std::ifstream f(p);
        return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    };
    std::string all;
    for (const char* k : {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "NPM_CONFIG_USERCONFIG", "PIP_CONFIG_FILE"}) {
        INFO(k);
        REQUIRE(env.count(k));
        all += read(env[k]);
    }
    all += read(tmp + "/.toolcage/gitignore");
    INFO(all);
    CHECK(env["GIT_CONFIG_GLOBAL"] == tmp + "/.toolcage/gitconfig");
    CHECK(all.find("Erin Example") != std::string::npos);
    CHECK(all.find("checkout") != std::string::npos);
    CHECK(all.find(tmp + "/.toolcage/gitignore") != std::string::npos);
    CHECK(all.find("*.log") != std::string::npos);
    CHECK(all.find("fund=false") != std::string::npos);
    CHECK(all.find(kMark) == std::string::npos);
    CHECK(all.find("credential.") == std::string::npos);
    CHECK(all.find("helper") == std::string::npos);
    CHECK(all.find("insteadof") == std::string::npos);
}
