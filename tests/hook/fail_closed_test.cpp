// `toolcage hook` fails closed in the format of the agent that reads it: past its deadline, on
// a crash (a stack overflow too), on a termination request, with its memory bounded.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/sanitizers.h"
#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

// A hook started as an agent starts it, whose stdin stays open until closed here.
class OpenHook {
public:
    OpenHook(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
        int in[2], out[2], err[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
            throw std::runtime_error("pipe2");
        std::vector<std::string> argv_s = {TOOLCAGE_BIN, "hook"};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        std::vector<std::string> env_s;
        for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("fork");
        if (pid_ == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            dup2(err[1], 2);
            std::vector<char*> argv, envp;
            for (auto& a : argv_s) argv.push_back(a.data());
            argv.push_back(nullptr);
            for (auto& e : env_s) envp.push_back(e.data());
            envp.push_back(nullptr);
            execve(argv[0], argv.data(), envp.data());
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        close(err[1]);
        in_ = in[1];
        out_ = out[0];
        err_ = err[0];
    }
    ~OpenHook() {
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        for (int fd : {in_, out_, err_})
            if (fd >= 0) close(fd);
    }
    pid_t pid() const { return pid_; }
    void write_stdin(const std::string& s) const {
        ssize_t n = write(in_, s.data(), s.size());
        REQUIRE(n == static_cast<ssize_t>(s.size()));
    }

    // Reads stdout and stderr to their end (a minute at most) and reaps the hook.
    RunResult finish() {
        RunResult r;
        bool out_open = true, err_open = true;
        char buf[65536];
        while (out_open || err_open) {
            pollfd fds[2] = {{out_open ? out_ : -1, POLLIN, 0}, {err_open ? err_ : -1, POLLIN, 0}};
            if (poll(fds, 2, 60000) <= 0) break;
            for (int i = 0; i < 2; ++i) {
                if (!fds[i].revents) continue;
                ssize_t n = read(i == 0 ? out_ : err_, buf, sizeof buf);
                if (n <= 0)
                    (i == 0 ? out_open : err_open) = false;
                else
                    (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
            }
        }
        kill(pid_, SIGKILL);  // still there after a minute: no answer, a failure below
        int status = 0;
        waitpid(pid_, &status, 0);
        reaped_ = true;
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return r;
    }

private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    bool reaped_ = false;
};

// The refusal each agent reads: Claude Code blocks on exit 2 with stderr, OpenClaw's plugin
// reads a deny, Hermes a block.
void require_refusal(const std::string& agent, const RunResult& r, const std::string& needle) {
    INFO(agent << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK(r.err.starts_with("toolcage: "));
    if (agent == "claude") {
        CHECK(r.out.empty());
        return;
    }
    json answer = json::parse(r.out, nullptr, false);
    REQUIRE(answer.is_object());
    if (agent == "openclaw") {
        CHECK(answer["decision"] == "deny");
        CHECK(answer["rule"] == "hook.error");
        CHECK(answer["reason"].get<std::string>().find(needle) != std::string::npos);
    } else {
        CHECK(answer["action"] == "block");
        CHECK(answer["message"].get<std::string>().find(needle) != std::string::npos);
    }
}

const std::vector<std::string> kAgents = {"claude", "openclaw", "hermes"};

// Waits (ten seconds at most) until the hook has armed its last words: its deadline's SIGALRM is
// the last handler it sets, so SigCgt holds it then. A signal sent before would find the
// default action (a sanitizer build starts slowly).
bool armed(pid_t pid) {
    for (int i = 0; i < 1000; ++i) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/status");
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("SigCgt:") &&
                (std::stoull(line.substr(7), nullptr, 16) & (1ULL << (SIGALRM - 1))))
                return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

}  // namespace

TEST_CASE("the hook refuses in the agent's own format when it cannot decide within its deadline", "[fail-closed]") {
    HookFixture f;
    for (const auto& agent : kAgents) {
        // An agent that never closes the hook's stdin: the hook cannot read a whole call.
        OpenHook h({"--agent", agent}, f.env);
        h.write_stdin(R"({"hook_event_name": )");
        require_refusal(agent, h.finish(), "could not decide within its deadline");
    }
    // Without --agent: a Hermes block, which the other agents ignore on exit 2.
    OpenHook h({}, f.env);
    require_refusal("hermes", h.finish(), "could not decide within its deadline");
}

TEST_CASE("the hook's memory is bounded", "[fail-closed]") {
    if (toolcage::kAddressSanitizer) return;  // it reserves terabytes of address space: no bound there
    HookFixture f;
    OpenHook h({"--agent", "claude"}, f.env);
    // The limit is set first thing; read it while the hook waits for its stdin.
    std::string limits;
    for (int i = 0; i < 100 && limits.find("1073741824") == std::string::npos; ++i) {
        std::ifstream in("/proc/" + std::to_string(h.pid()) + "/limits");
        std::stringstream ss;
        ss << in.rdbuf();
        for (std::string line; std::getline(ss, line);)
            if (line.starts_with("Max address space")) limits = line;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    INFO(limits);
    CHECK(limits.find("1073741824") != std::string::npos);
    REQUIRE(armed(h.pid()));
    kill(h.pid(), SIGTERM);
    require_refusal("claude", h.finish(), "told to stop (SIGTERM)");
}

TEST_CASE("a hook killed by a fatal signal still answers a refusal in the agent's format", "[fail-closed]") {
    HookFixture f;
    for (const auto& agent : kAgents) {
        OpenHook h({"--agent=" + agent}, f.env);
        REQUIRE(armed(h.pid()));
        kill(h.pid(), SIGSEGV);
        require_refusal(agent, h.finish(), "crashed (SIGSEGV)");
    }
}

TEST_CASE("a tool call nested 200,000 deep is refused in the agent's format, not crashed on", "[fail-closed]") {
    HookFixture f;
    std::string deep(200000, '[');
    std::string payload = R"({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/", "tool_input": )" + deep;
    for (const auto& agent : kAgents) {
        RunResult r = f.hook(payload, {"--agent", agent});
        INFO(agent << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.starts_with("toolcage: "));
        if (agent == "claude") CHECK(r.out.empty());
        if (agent == "hermes") CHECK(json::parse(r.out, nullptr, false).value("action", "") == "block");
        if (agent == "openclaw") CHECK(json::parse(r.out, nullptr, false).value("decision", "") == "deny");
    }
}

TEST_CASE("a hook command line it cannot read is refused in the agent's format", "[fail-closed]") {
    HookFixture f;
    for (const auto& agent : kAgents) {
        RunResult r = f.hook(claude_bash("ls", f.ws), {"--agent", agent, "--no-such-option"});
        INFO(agent << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("no-such-option") != std::string::npos);
        if (agent == "claude") CHECK(r.out.empty());
        if (agent == "hermes") CHECK(json::parse(r.out, nullptr, false).value("action", "") == "block");
        if (agent == "openclaw") CHECK(json::parse(r.out, nullptr, false).value("decision", "") == "deny");
    }
}
