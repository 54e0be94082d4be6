// `toolcage run` and `toolcage hook` are started by the agent's shell, whose earlier calls may
// have exported anything: for each class of variable that once steered the launcher (git's
// global configuration, proxies, npm's settings, NODE_OPTIONS and PATH, HOME and XDG_*,
// TOOLCAGE_LOG), the attacker's value is set as that shell would set it, and the test asserts it
// had no effect, and that the legitimate path (the user's real files) still works beside it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "../hook/run_binary.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;
using nlohmann::json;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

std::string real_home(As who) {
    const passwd* pw = ::getpwuid(testsupport::case_uid(who == As::nobody));
    return pw ? pw->pw_dir : "";
}

// A loopback listener that counts the connections it accepts.
struct Listener {
    int fd = -1;
    std::uint16_t port = 0;
    std::atomic<int> accepted{0};
    std::atomic<bool> stop{false};
    std::thread thread;

    Listener() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(fd >= 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd, 16) == 0);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        thread = std::thread([this] {
            while (!stop) {
                pollfd p{fd, POLLIN, 0};
                if (::poll(&p, 1, 50) == 1) {
                    int c = ::accept(fd, nullptr, nullptr);
                    if (c >= 0) {
                        ++accepted;
                        ::close(c);
                    }
                }
            }
        });
    }
    ~Listener() {
        stop = true;
        thread.join();
        ::close(fd);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

}  // namespace

TEST_CASE("git's global-config variables name no file the step's settings come from",
          "[trust][env][git]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            const std::string secret = (w.base / "id_ed25519").string();
            std::ofstream(secret) << "SECRET-KEY-MATERIAL\n";
            ::chmod(secret.c_str(), 0644);
            const std::string evil = "[core]\n\texcludesfile = " + secret + "\n\tattributesfile = " + secret +
                                     "\n[user]\n\tname = attacker-identity\n";
            w.put("evil.gitconfig", evil);
            w.put("cfg/git/config", evil);
            w.put("cfg/git/ignore", "SECRET-FROM-XDG\n");
            w.own();
            const std::map<std::string, std::string> attack = {
                {"GIT_CONFIG_GLOBAL", (w.ws / "evil.gitconfig").string()},
                {"GIT_CONFIG_SYSTEM", (w.ws / "evil.gitconfig").string()},
                {"GIT_CONFIG_NOSYSTEM", "0"},
                {"GIT_CONFIG_COUNT", "1"},
                {"GIT_CONFIG_KEY_0", "core.excludesfile"},
                {"GIT_CONFIG_VALUE_0", secret},
                {"GIT_CONFIG_PARAMETERS", "'core.excludesfile'='" + secret + "'"},
                {"XDG_CONFIG_HOME", (w.ws / "cfg").string()},
            };
            Result r = w.caged("cat \"$TMPDIR\"/.toolcage/* 2>/dev/null; git config --global --get user.name; "
                               "git config --global --get core.excludesfile; true",
                               w.policy(), attack);
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("SECRET-KEY-MATERIAL") == std::string::npos);
            CHECK(r.out.find("SECRET-FROM-XDG") == std::string::npos);
            CHECK(r.out.find("attacker-identity") == std::string::npos);
            CHECK(r.out.find(secret) == std::string::npos);

            // The user's real ~/.gitconfig (the user database's home) still reaches the step: the
            // step's identity is the one it names (none where it names none). The test only reads
            // that file: it is the user's.
            if (who != As::root) continue;  // nobody has no home
            const std::string gitconfig = real_home(who) + "/.gitconfig";
            Result name = present(gitconfig)
                              ? run({"/usr/bin/git", "config", "--file", gitconfig, "--get", "user.name"},
                                    {{"PATH", "/usr/bin:/bin"}})
                              : Result{};
            Result ok = w.caged("git config --global --get user.name; true", w.policy(), attack);
            INFO(ok.out);
            CHECK(ok.status == 0);
            if (name.out.empty())
                WARN("the user's ~/.gitconfig names no user.name: only the attacker's identity's absence is "
                     "checked, not that the user's own reaches the step");
            CHECK(ok.out == name.out);
            CHECK(ok.out.find("attacker-identity") == std::string::npos);
        }
    }
}

TEST_CASE("a proxy variable is never the relay's upstream; the policy's is", "[trust][env][relay]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            Listener attacker;
            std::map<std::string, std::string> attack;
            for (const char* k : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"})
                attack[k] = attacker.url();
            const std::string policy =
                w.policy_with("integrity-relay", {{"relay", {{"enabled", true}, {"allow", json::array({"example.com"})}}}});
            const std::string step = "curl -s -m 3 -o /dev/null https://example.com/; true";
            Result r = w.caged(step, policy, attack);
            INFO(r.out);
            CHECK(r.status == 0);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            CHECK(attacker.accepted == 0);

            // The policy's relay.upstream is used: the same listener, named there, is reached.
            Listener upstream;
            const std::string named = w.policy_with("integrity-upstream",
                {{"relay", {{"enabled", true}, {"allow", json::array({"example.com"})}, {"upstream", upstream.url()}}}});
            Result ok = w.caged(step, named, attack);
            INFO(ok.out);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            CHECK(upstream.accepted > 0);
            CHECK(attacker.accepted == 0);
        }
    }
}

TEST_CASE("npm's variables and NODE_OPTIONS neither widen the allowlist nor run anything outside the cage",
          "[trust][env][npm]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            const std::string marker = w.marker("ran-outside");
            w.put(".npmrc", "registry=https://attacker-userconfig.invalid/\n");
            w.put("evil.js", "require('fs').writeFileSync('" + marker + "', 'x')\n");
            for (const char* prog : {"npm", "node", "git", "python3"})
                w.put(std::string("bin/") + prog, "#!/bin/sh\ntouch " + marker + "\n", 0755);
            w.own();
            std::map<std::string, std::string> attack = {
                {"npm_config_registry", "https://attacker-env.invalid/"},
                {"NPM_CONFIG_REGISTRY", "https://attacker-env.invalid/"},
                {"npm_config_userconfig", (w.ws / ".npmrc").string()},
                {"NPM_CONFIG_USERCONFIG", (w.ws / ".npmrc").string()},
                {"NODE_OPTIONS", "--require " + (w.ws / "evil.js").string()},
                {"PATH", (w.ws / "bin").string() + ":/usr/local/bin:/usr/bin:/bin"},
            };
            const std::string policy =
                w.policy_with("integrity-npm", {{"relay", {{"enabled", true}, {"allow", json::array({"{npm_registry}"})}}}});
            Result r = w.caged("for h in attacker-env.invalid attacker-userconfig.invalid; do "
                               "/usr/bin/curl -s -m 3 -o /dev/null https://$h/; done; true",
                               policy, attack);
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK_FALSE(present(marker));  // nothing of the workspace ran outside the cage
            // Both hosts were refused by the relay: neither reached its allowlist.
            for (const char* h : {"attacker-env.invalid", "attacker-userconfig.invalid"}) {
                INFO(h);
                CHECK(r.out.find(std::string("add \"") + h + "\" to relay.allow") != std::string::npos);
            }

            // The user's real ~/.npmrc names the registry the relay allows (npm's default where it
            // names none; one written for the test where the user has no npmrc).
            if (who != As::root) continue;  // nobody has no home
            const std::string npmrc = real_home(who) + "/.npmrc";
            const bool made = !present(npmrc);
            if (made) std::ofstream(npmrc) << "registry=https://registry.trust-test.invalid/\n";
            std::string host = "registry.npmjs.org";
            std::istringstream lines(slurp(npmrc));
            for (std::string line; std::getline(lines, line);)
                if (line.rfind("registry=https://", 0) == 0) host = line.substr(17, line.find('/', 17) - 17);
            Result ok = w.caged("/usr/bin/curl -s -m 3 -o /dev/null https://" + host + "/; true", policy, attack);
            if (made) fs::remove(npmrc);
            INFO(host);
            INFO(ok.out);
            CHECK(ok.out.find("add \"" + host + "\" to relay.allow") == std::string::npos);
            CHECK(ok.out.find("attacker") == std::string::npos);
            CHECK_FALSE(present(marker));
        }
    }
}

TEST_CASE("HOME, XDG_* and TOOLCAGE_LOG move none of toolcage's files, nor the step's HOME",
          "[trust][env][state]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            const fs::path fake = w.base / "fake-home";
            fs::create_directories(fake);
            std::ofstream(fake / ".bashrc") << "original\n";
            ::chown(fake.c_str(), who == As::root ? 0 : 65534, who == As::root ? 0 : 65534);
            ::chown((fake / ".bashrc").c_str(), who == As::root ? 0 : 65534, who == As::root ? 0 : 65534);
            const std::map<std::string, std::string> attack = {
                {"HOME", fake.string()},
                {"XDG_STATE_HOME", (fake / "state").string()},
                {"XDG_CONFIG_HOME", (fake / "config").string()},
                {"XDG_RUNTIME_DIR", fake.string()},
                {"TOOLCAGE_LOG", (fake / ".bashrc").string()},
                {"CARGO_HOME", (w.ws / "cargo").string()},
            };
            Result r = w.caged("echo \"H=$HOME\"", w.policy(), attack);
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("H=" + real_home(who) + "\n") != std::string::npos);
            std::map<std::string, std::string> env = w.env();
            for (const auto& [k, v] : attack) env[k] = v;
            Result h = w.hook(env);
            INFO(h.out);
            CHECK(h.status == 0);
            CHECK(slurp(fake / ".bashrc") == "original\n");
            CHECK_FALSE(present(fake / "state"));
            CHECK_FALSE(present(fake / ".local"));
            CHECK_FALSE(present(fake / "config"));
            // The step and the hook were logged in the real state directory.
            std::string log = slurp(state_dir_of(who) + "/decisions.jsonl");
            CHECK(log.find("\"workspace\":\"" + w.ws.string() + "\"") != std::string::npos);
        }
    }
}
