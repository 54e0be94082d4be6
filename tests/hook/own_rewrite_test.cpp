// Never caged twice: the shell hook, as Hermes's second layer, sees the command the plugin
// already rewrote. toolcage's own rewrite passes unchanged; anything that merely looks like
// one is judged as usual. And `toolcage hook` never ends without an answer.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "fixture.h"
#include "hook/decision/rewrite.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

const std::string kId = "0123456789abcdef";

// The step id a rewrite names (16 hex characters after --step-id).
std::string step_of(const std::string& rw) {
    auto at = rw.find(" --step-id ");
    return at == std::string::npos ? std::string() : rw.substr(at + 11, 16);
}

std::string rewrite_of(const HookFixture& f, const std::string& command, const std::string& cwd,
                       const std::vector<std::string>& args = {}) {
    auto r = f.hook(hermes_terminal(command, cwd), args);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    json out = parse_out(r);
    REQUIRE(out["action"] == "modify");
    return out["args"]["command"];
}

void require_block(const RunResult& r) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    json out = parse_out(r);
    REQUIRE(out.is_object());
    CHECK(out["action"] == "block");
    CHECK(out["message"].get<std::string>().starts_with("toolcage: "));
}

}  // namespace

TEST_CASE("own rewrite: parse_rewrite gives the parts back only for the exact bytes",
          "[own-rewrite]") {
    using namespace toolcage::hook;
    for (std::string inner : {"npm install", "echo 'it'\\''s' \"$HOME\" `id`", "a\nb", "", "'"}) {
        std::string rw = cage_rewrite("/opt/tc/toolcage", "forge", kId, "/home/u/src/p", inner);
        auto parts = parse_rewrite(rw);
        REQUIRE(parts);
        CHECK(parts->run.toolcage_bin == "/opt/tc/toolcage");
        CHECK(parts->run.policy == "forge");
        CHECK(parts->run.step_id == kId);
        CHECK(parts->run.workdir == "/home/u/src/p");
        CHECK(parts->run.command == inner);
        CHECK(parts->outside.empty());
        // The same words written differently are not toolcage's rewrite.
        CHECK_FALSE(parse_rewrite(rw + " "));
        CHECK_FALSE(parse_rewrite(" " + rw));
        CHECK_FALSE(parse_rewrite(rw + "; rm -rf ~"));
        CHECK_FALSE(parse_rewrite("cd /tmp && " + rw));
    }
    CHECK_FALSE(
        parse_rewrite("/opt/tc/toolcage run --policy forge --workdir /home/u/src/p -- /bin/bash -c "
                      "'npm install'"));
    CHECK_FALSE(parse_rewrite(
        "'/opt/tc/toolcage' run --policy \"forge\" --workdir '/w' -- /bin/bash -c 'x'"));
    CHECK_FALSE(
        parse_rewrite("'/opt/tc/toolcage' run --policy 'forge' --workdir '/w' -- /bin/sh -c 'x'"));
    CHECK_FALSE(parse_rewrite(
        "'/opt/tc/toolcage' run --policy 'forge' --workdir \"$W\" -- /bin/bash -c 'x'"));
    CHECK_FALSE(parse_rewrite("not a 'command"));
    // The step's id: exactly 16 of 0-9 a-f, bare, where the rewrite writes it; else not ours.
    const std::string good = cage_rewrite("/opt/tc/toolcage", "forge", kId, "/w", "x");
    REQUIRE(parse_rewrite(good));
    CHECK_FALSE(parse_rewrite("'/opt/tc/toolcage' run --policy 'forge' --workdir '/w' -- /bin/bash -c 'x'"));
    for (std::string id : {"0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0", "0123456789abcdeg",
                           "../../etc/passwd", "$(id)", "", "0123456789abcde\n"}) {
        std::string bad = good;
        bad.replace(bad.find(kId), kId.size(), id);
        INFO(bad);
        CHECK_FALSE(parse_rewrite(bad));
    }
    std::string quoted = good;
    quoted.replace(quoted.find(kId), kId.size(), "'" + kId + "'");
    CHECK_FALSE(parse_rewrite(quoted));
    std::string moved = "'/opt/tc/toolcage' run --step-id " + kId + " --policy 'forge' --workdir '/w' -- /bin/bash -c 'x'";
    CHECK_FALSE(parse_rewrite(moved));
}

TEST_CASE("own rewrite: every form the rewrite writes is recognised, and only those bytes", "[own-rewrite]") {
    using namespace toolcage::hook;
    for (bool read_only : {false, true})
        for (std::string workspace : {std::string(), std::string("/home/u/src/p")}) {
            CageRewrite r{"/opt/tc/toolcage", "forge", kId, "/home/u/src/p/sub", workspace, read_only, "make test"};
            std::string rw = cage_rewrite(r);
            auto parts = parse_rewrite(rw);
            REQUIRE(parts);
            CHECK(parts->run.read_only == read_only);
            CHECK(parts->run.workspace == workspace);
            CHECK(parts->run.workdir == "/home/u/src/p/sub");
            CHECK(parts->outside.empty());
            CHECK_FALSE(parse_rewrite(rw + " "));
            CHECK_FALSE(parse_rewrite("cd /tmp && " + rw));
        }
    // The moves kept in the agent's shell: recognised, in toolcage's words only.
    CageRewrite r{"/opt/tc/toolcage", "forge", kId, "/home/u/src/p", "/home/u/src/p", true, "cd sub && export A=1 && ls"};
    std::string rw = cage_rewrite(r);
    REQUIRE(rw.starts_with("builtin cd './sub' && '/opt/tc/toolcage' run"));
    auto parts = parse_rewrite(rw);
    REQUIRE(parts);
    CHECK(parts->outside == "builtin cd './sub'");
    CHECK(parts->run.command == "export A=1 && ls");
    CHECK(parts->run.workdir.empty());
    CHECK(parts->run.workspace == "/home/u/src/p");
    // A prefix that is not toolcage's words for moves, or a prefixed run that names a workdir,
    // is not ours.
    std::string run_part = rw.substr(rw.find("'/opt/tc/toolcage'"));
    for (std::string prefix : {"rm -rf ~", "cd $(touch /tmp/x)", "cd sub", "builtin cd sub", "builtin cd \"./sub\"",
                               "export A=1", "builtin cd './sub' && export A=1", "test -v 'a[$(id)]'", "set -x",
                               "builtin cd './sub' && builtin cd '.'  "})
        CHECK_FALSE(parse_rewrite(prefix + " && " + run_part));
    CHECK_FALSE(parse_rewrite("builtin cd './sub'; " + run_part));
    CHECK_FALSE(parse_rewrite("builtin cd './sub' && " + cage_rewrite("/opt/tc/toolcage", "forge", kId, "/w", "ls")));
}

TEST_CASE("own rewrite: the shell hook passes the plugin's rewrite unchanged, wherever Hermes runs",
          "[own-rewrite]") {
    HookFixture f;
    std::string rw = rewrite_of(f, "npm install", f.ws);
    // The shell hook's cwd is Hermes's own directory, not the terminal's.
    for (std::string hermes_cwd : {std::string("/"), f.home, f.ws}) {
        auto r = f.hook(hermes_terminal(rw, hermes_cwd));
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out == "{}\n");
    }
}

TEST_CASE("own rewrite: look-alikes are judged as usual", "[own-rewrite]") {
    HookFixture f;
    std::string rw = rewrite_of(f, "npm install", f.ws);
    std::string other = f.root / "toolcage";
    write_file(other, "#!/bin/sh\n");
    std::vector<std::string> lookalikes = {
        rw + " ",                                                             // not the bytes
        rw + "; rm -rf ~",                                                    // more after it
        toolcage::hook::cage_rewrite(other, "default", kId, f.ws, "npm install"),  // another binary
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "strict", kId, f.ws,
                                     "npm install"),  // another policy
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, "/",
                                     "npm install"),  // the root as workdir
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, f.home, "npm install"),  // the home
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, f.ws + "/../ws", "npm install"),
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, f.ws + "/missing", "npm install"),
        toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, f.ws, rw),  // nested
    };
    for (const auto& cmd : lookalikes) {
        auto r = f.hook(hermes_terminal(cmd, f.ws));
        INFO(cmd << "\n" << r.out << r.err);
        CHECK(r.out != "{}\n");
    }
}

TEST_CASE("own rewrite: a rewrite of a destructive command stays denied", "[own-rewrite]") {
    HookFixture f;
    std::string cmd = toolcage::hook::cage_rewrite(TOOLCAGE_BIN, "default", kId, f.ws, "rm -rf ~");
    auto r = f.hook(hermes_terminal(cmd, f.ws));
    require_block(r);
    CHECK(parse_out(r)["message"].get<std::string>().find("rm.home") != std::string::npos);
}

TEST_CASE("own rewrite: an ask carries its caged rewrite, and the rewrite still asks",
          "[own-rewrite]") {
    HookFixture f;
    std::string policy = f.ask_policy(true);
    auto r = f.hook(hermes_terminal("echo ask-me", f.ws), {"--policy", policy});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    json out = parse_out(r);
    REQUIRE(out["action"] == "approve");
    CHECK(out["rule_key"].get<std::string>().starts_with("toolcage:test.ask-me:terminal:"));
    std::string rw = out["args"]["command"];
    CHECK(rw == toolcage::hook::cage_rewrite(
                    toolcage::hook::CageRewrite{TOOLCAGE_BIN, policy, step_of(rw), f.ws, f.ws, false, "echo ask-me", ""}));
    auto again = f.hook(hermes_terminal(rw, "/"), {"--policy", policy});
    json out2 = parse_out(again);
    CHECK(out2["action"] == "approve");
    CHECK_FALSE(out2.contains("args"));  // already the rewrite: nothing more to change
}

TEST_CASE("hook: never ends without an answer", "[last-words]") {
    HookFixture f;
    SECTION("garbage") {
        require_block(f.hook(std::string("\x01\xff{{{ not json", 14)));
    }
    SECTION("huge input") {
        require_block(f.hook(std::string((1 << 20) + 10, 'x')));
    }
    SECTION("huge valid JSON") {
        require_block(f.hook(hermes_terminal(std::string((1 << 20) + 10, 'a'), f.ws)));
    }
    SECTION("deeply nested JSON") {
        require_block(f.hook(std::string(200000, '[')));
    }
    SECTION("unreadable policy") {
        require_block(
            f.hook(hermes_terminal("ls", f.ws), {"--policy", f.root / "no-such-policy.json"}));
        require_block(f.hook(hermes_terminal("ls", f.ws), {"--policy", f.ws}));  // a directory
    }
    SECTION("bad command line") {
        require_block(f.hook(hermes_terminal("ls", f.ws), {"--no-such-flag"}));
    }
    SECTION("empty input") {
        require_block(f.hook(std::string()));
    }
}

TEST_CASE("hook: a termination request while it waits is a block, not silence", "[last-words]") {
    int in[2], out[2];
    REQUIRE(::pipe(in) == 0);
    REQUIRE(::pipe(out) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::close(in[1]);
        ::close(out[0]);
        ::execl(TOOLCAGE_BIN, TOOLCAGE_BIN, "hook", "--agent", "hermes",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    // The hook is reading a payload that never ends: stop it as a timeout would.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid, SIGTERM);
    std::string answer;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
        answer.append(buf, static_cast<size_t>(n));
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(in[1]);
    ::close(out[0]);
    INFO(answer);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    json a = json::parse(answer);
    CHECK(a["action"] == "block");
    CHECK(a["message"].get<std::string>().find("SIGTERM") != std::string::npos);
}

TEST_CASE("hook: an agent that closed its end gets exit 2, not a silent death", "[last-words]") {
    HookFixture f;
    // stdout is a pipe nobody reads: write() fails with EPIPE instead of SIGPIPE killing it.
    int out[2];
    REQUIRE(::pipe(out) == 0);
    ::close(out[0]);
    int in[2];
    REQUIRE(::pipe(in) == 0);
    std::string payload = hermes_terminal("ls", f.ws).dump();
    REQUIRE(::write(in[1], payload.data(), payload.size()) == static_cast<ssize_t>(payload.size()));
    ::close(in[1]);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::signal(SIGPIPE, SIG_DFL);
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::execl(TOOLCAGE_BIN, TOOLCAGE_BIN, "hook", "--agent", "hermes",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
}

TEST_CASE("hermes: toolcage's plugin in the profile is protected like the profile's config",
          "[hermes][self-protect]") {
    HookFixture f;
    const std::string plugin = f.hermes_home + "/plugins/toolcage";
    make_dirs(plugin);
    for (const std::string& cmd :
         {"echo '{}' > " + plugin + "/config.json", "rm -rf " + f.hermes_home + "/plugins",
          "python3 -c \"open('" + plugin + "/__init__.py','w')\""}) {
        auto r = f.hook(hermes_terminal(cmd, f.ws));
        INFO(cmd);
        require_block(r);
    }
    auto w = f.hook(hermes_payload("write_file", {{"path", plugin + "/__init__.py"}, {"content", "x"}}, f.ws));
    require_block(w);
    CHECK(parse_out(w)["message"].get<std::string>().find("self.protected") != std::string::npos);
}
