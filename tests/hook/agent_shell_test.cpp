// One real bash kept between calls, as Claude Code and Hermes keep theirs: every command goes
// through `toolcage hook` (each agent's dialect, every installed policy), the answer runs in that
// same shell with the real `toolcage run`, as root and as nobody. Whatever a command makes bash
// evaluate (array subscripts in test/printf/unset/declare/read/let, arithmetic, PS4 under
// set -x, traps, aliases and functions, exported PROMPT_COMMAND/BASH_ENV/PATH/LD_PRELOAD,
// CDPATH) never runs outside the cage and leaves that shell as it was; `cd sub && ls` still
// moves it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "fixture.h"
#include "tests/other_user.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

constexpr const char* kEnd = "__toolcage_call_end__";

enum class User { root, nobody };

std::vector<std::string> as_user(User u, std::vector<std::string> argv) {
    if (u == User::nobody) {
        // Only root can switch users: otherwise the tests' own user stands in for nobody.
        auto prefix = testsupport::as_nobody_prefix();
        argv.insert(argv.begin(), prefix.begin(), prefix.end());
    }
    return argv;
}

// A scratch tree every user can use: a workspace (a git tree with sub/), a home, a directory
// outside both where a payload that escaped leaves its mark, and a log.
struct Tree {
    TempDir root{testsupport::scratch_parent(TOOLCAGE_HOOK_TEST_DIR)};
    std::string ws = root / "ws", home = root / "home", outside = root / "outside", log = root / "log.jsonl";
    Tree() {
        for (const std::string& d : {ws + "/.git", ws + "/sub", ws + "/bin", home, outside, outside + "/sub"})
            make_dirs(d);
        write_file(ws + "/sub/inside-sub.txt", "x\n");
        write_file(outside + "/sub/cdpath-was-followed.txt", "x\n");
        write_file(ws + "/evil.sh", "touch '" + outside + "/pwned-bash-env'\n");
        write_file(ws + "/bin/ls", "#!/bin/sh\ntouch '" + outside + "/pwned-path'\n");
        ::chmod((ws + "/bin/ls").c_str(), 0755);
        ::chmod(root.path().c_str(), 0755);
        for (const std::string& d : {ws, ws + "/sub", ws + "/bin", ws + "/.git", home, outside, outside + "/sub"})
            ::chmod(d.c_str(), 0777);
        write_file(log, "");
        ::chmod(log.c_str(), 0666);
    }
    std::map<std::string, std::string> env() const {
        return {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", home}, {"LANG", "C.UTF-8"},
                {"TOOLCAGE_LOG", log}, {"XDG_STATE_HOME", home + "/.local/state"}};
    }
};

// The agent's shell: bash reading commands from a pipe, alive for the whole run.
class AgentShell {
public:
    AgentShell(User u, const Tree& t) {
        int in[2], out[2];
        REQUIRE(::pipe(in) == 0);
        REQUIRE(::pipe(out) == 0);
        auto argv = as_user(u, {"/bin/bash", "--norc", "--noprofile"});
        std::vector<std::string> env;
        for (const auto& [k, v] : t.env()) env.push_back(k + "=" + v);
        testsupport::keep_suite_state(env);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::dup2(out[1], 2);
            for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
            if (::chdir(t.ws.c_str()) != 0) _exit(97);
            std::vector<char*> a, e;
            for (auto& x : argv) a.push_back(x.data());
            a.push_back(nullptr);
            for (auto& x : env) e.push_back(x.data());
            e.push_back(nullptr);
            ::execve(a[0], a.data(), e.data());
            _exit(99);
        }
        ::close(in[0]);
        ::close(out[1]);
        to_ = in[1];
        from_ = out[0];
    }
    ~AgentShell() {
        ::close(to_);
        ::close(from_);
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }

    // Runs `command` in the shell (stdin /dev/null, as agents run them) and returns its output;
    // nullopt when the shell is gone.
    std::optional<std::string> run(const std::string& command) {
        std::string text = "{\n" + command + "\n} </dev/null 2>&1; printf '\\n%s\\n' " + kEnd + "\n";
        if (::write(to_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return std::nullopt;
        std::string got;
        const std::string end = std::string("\n") + kEnd + "\n";
        char buf[4096];
        while (got.size() < end.size() || got.compare(got.size() - end.size(), end.size(), end) != 0) {
            pollfd p{from_, POLLIN, 0};
            if (::poll(&p, 1, 60000) <= 0) return std::nullopt;
            ssize_t n = ::read(from_, buf, sizeof buf);
            if (n <= 0) return std::nullopt;
            got.append(buf, static_cast<std::size_t>(n));
        }
        return got.substr(0, got.size() - end.size());
    }

    // What a later command depends on: variables (but those bash changes itself), functions,
    // aliases, options, traps, the hash table.
    std::string state() {
        auto out = run("declare -p; echo '@@ variables end'; declare -f; alias; set -o; shopt; trap -p; "
                       "hash -l 2>/dev/null; echo umask=$(umask)");
        REQUIRE(out);
        const std::size_t variables_end = out->find("@@ variables end\n");
        REQUIRE(variables_end != std::string::npos);
        static const std::set<std::string> kMoving = {
            "_", "PIPESTATUS", "BASH_LINENO", "LINENO", "SECONDS", "RANDOM", "SRANDOM", "EPOCHSECONDS",
            "EPOCHREALTIME", "BASH_COMMAND", "BASHPID", "OLDPWD", "PWD", "DIRSTACK", "BASH_ARGC",
            "BASH_ARGV", "BASH_SOURCE", "FUNCNAME", "HISTCMD", "BASH_SUBSHELL", "COLUMNS", "LINES"};
        static const std::regex kDeclare(R"(^declare -[-a-zA-Z]* ([A-Za-z_][A-Za-z_0-9]*)(=.*)?$)");
        std::string kept;
        bool skipping = false;
        std::size_t at = 0;
        while (at < variables_end) {
            std::size_t nl = out->find('\n', at);
            std::string line = out->substr(at, nl == std::string::npos ? std::string::npos : nl - at);
            at = nl == std::string::npos ? out->size() : nl + 1;
            std::smatch m;
            if (line.starts_with("declare ")) skipping = std::regex_match(line, m, kDeclare) && kMoving.count(m[1]);
            if (!skipping) kept += line + "\n";
        }
        return kept + out->substr(variables_end);
    }

    std::string pwd() {
        auto out = run("builtin pwd");
        REQUIRE(out);
        return out->substr(0, out->find('\n'));
    }

private:
    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
};

// What the agent runs for `command` after the hook answered, or nullopt when the hook refused
// or asked. Hermes: the plugin's rewrite, judged again at pre_tool_call, must pass unchanged.
std::optional<std::string> through_hook(const std::string& agent, const std::string& policy, User u,
                                        const Tree& t, const std::string& command, const std::string& cwd) {
    auto hook = [&](const json& payload) {
        // Nobody runs a copy it can reach; the rewrite it answers names that copy for the cage.
        const std::string toolcage = u == User::nobody ? testsupport::reachable(TOOLCAGE_BIN) : TOOLCAGE_BIN;
        auto argv = as_user(u, {toolcage, "hook", "--agent", agent, "--policy", policy});
        std::string bin = argv[0];
        argv.erase(argv.begin());
        return run_binary(bin, argv, payload.dump(), t.env());
    };
    if (agent == "claude") {
        RunResult r = hook(claude_bash(command, cwd));
        INFO(command << "\n" << r.out << r.err);
        if (r.exit_code == 2) return std::nullopt;
        REQUIRE(r.exit_code == 0);
        json h = parse_out(r)["hookSpecificOutput"];
        if (h["permissionDecision"] != "allow") return std::nullopt;
        return h.contains("updatedInput") ? h["updatedInput"]["command"].get<std::string>() : command;
    }
    RunResult r = hook(hermes_terminal(command, cwd));
    INFO(command << "\n" << r.out << r.err);
    if (r.exit_code == 2) return std::nullopt;
    REQUIRE(r.exit_code == 0);
    json a = parse_out(r);
    if (a.empty()) return command;
    if (a["action"] != "modify") return std::nullopt;
    std::string rewritten = a["args"]["command"];
    RunResult again = hook(hermes_terminal(rewritten, cwd));
    INFO(rewritten << "\n" << again.out << again.err);
    CHECK(again.exit_code == 0);
    CHECK(again.out == "{}\n");
    return rewritten;
}

// A command, or a few in turn, that an attacker controls. @M@ is a file the payload creates
// where no caged step may write.
enum class Live {
    mark,   // in a plain kept bash it leaves a file outside the cage
    state,  // there it changes the shell's state (or ends the shell)
    none,   // bash 5.2 does not evaluate it; kept for the versions that do
};

struct Attack {
    const char* name;
    std::vector<std::string> calls;
    Live live;
};

const std::vector<Attack> kAttacks = {
    {"test -v subscript", {"test -v 'a[$(touch @M@)]'"}, Live::mark},
    {"[ -v subscript", {"[ -v 'a[$(touch @M@)]' ]"}, Live::mark},
    {"[[ -v subscript", {"[[ -v 'a[$(touch @M@)]' ]]"}, Live::mark},
    {"printf -v subscript", {"printf -v 'a[$(touch @M@)]' x"}, Live::mark},
    {"unset subscript", {"a=(1) && unset 'a[$(touch @M@)]'"}, Live::mark},
    {"declare subscript", {"declare 'a[$(touch @M@)]=1'"}, Live::mark},
    {"read subscript", {"read 'a[$(touch @M@)]' <<< x"}, Live::mark},
    {"let subscript", {"let 'a[$(touch @M@)]=1'"}, Live::mark},
    {"(( )) of a variable", {"x='a[$(touch @M@)]' && (( x ))"}, Live::mark},
    {"quiet builtins in front", {"true && echo ok && test -v 'a[$(touch @M@)]'"}, Live::mark},
    {"after a cd", {"cd sub && test -v 'a[$(touch @M@)]'"}, Live::mark},
    {"printf %d arithmetic", {"a=(1) && printf '%d' 'a[$(touch @M@)]'"}, Live::none},
    {"shift arithmetic", {"shift 'a[$(touch @M@)]'"}, Live::none},
    {"PS4 and set -x", {"PS4='$(touch @M@)' && set -x", "ls"}, Live::mark},
    {"DEBUG trap", {"trap 'touch @M@' DEBUG", "ls"}, Live::mark},
    {"set -T and a trap", {"set -T && trap 'touch @M@' RETURN", "ls"}, Live::state},
    {"extdebug", {"shopt -s extdebug"}, Live::state},
    {"a function named cd", {"cd() { touch @M@; }", "cd sub && ls"}, Live::mark},
    {"a function named builtin", {"builtin() { touch @M@; }", "cd sub && ls"}, Live::state},
    {"an alias", {"shopt -s expand_aliases && alias builtin='touch @M@;'", "cd sub && ls"}, Live::state},
    {"export PROMPT_COMMAND", {"export PROMPT_COMMAND='touch @M@'"}, Live::state},
    {"export BASH_ENV", {"export BASH_ENV=@WS@/evil.sh", "bash -c true"}, Live::mark},
    {"export ENV", {"export ENV=@WS@/evil.sh"}, Live::state},
    {"export PATH", {"export PATH=@WS@/bin:$PATH", "ls"}, Live::mark},
    {"export LD_PRELOAD", {"export LD_PRELOAD=@WS@/x.so"}, Live::state},
    {"GLOBIGNORE", {"GLOBIGNORE='*'"}, Live::state},
    {"CDPATH then cd", {"export CDPATH=@OUT@", "cd sub && ls"}, Live::state},
    {"unset PATH", {"unset PATH"}, Live::state},
    {"set -e and nounset", {"set -eu"}, Live::state},
    {"hash -p", {"hash -p @WS@/bin/ls ls"}, Live::state},
    {"exec", {"exec /bin/sh -c 'touch @M@'"}, Live::mark},
    {"source", {"source @WS@/evil.sh"}, Live::mark},
    {"exit", {"exit 3"}, Live::state},
    {"umask", {"umask 000"}, Live::state},
};

std::string filled(std::string s, const Tree& t, const std::string& marker) {
    for (auto [from, to] : {std::pair<std::string, std::string>{"@M@", marker}, {"@WS@", t.ws}, {"@OUT@", t.outside}})
        for (std::size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    return s;
}

bool exists(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0;
}

// Every file the payloads may have left outside the cage.
std::vector<std::string> marks_left(const Tree& t) {
    std::vector<std::string> out;
    for (const std::string& d : {t.outside, t.home})
        for (const char* n : {"pwned", "pwned-bash-env", "pwned-path"})
            if (exists(d + "/" + n)) out.push_back(d + "/" + n);
    return out;
}

void clear_marks(const Tree& t) {
    for (const std::string& d : {t.outside, t.home})
        for (const char* n : {"pwned", "pwned-bash-env", "pwned-path"}) ::unlink((d + "/" + n).c_str());
}

}  // namespace

TEST_CASE("agent shell: every payload really escapes a plain kept bash", "[agent-shell]") {
    // Without the hook each attack leaves its mark or changes the shell: the cases are real.
    for (User u : {User::root, User::nobody}) {
        Tree t;
        for (const Attack& a : kAttacks) {
            INFO(a.name << (u == User::root ? " as root" : " as nobody"));
            AgentShell sh(u, t);
            std::string before = sh.state();
            std::string marker = t.outside + "/pwned";
            bool alive = true;
            for (const auto& c : a.calls) alive = alive && sh.run(filled(c, t, marker)).has_value();
            if (a.live == Live::mark) CHECK(!marks_left(t).empty());
            if (a.live == Live::state) CHECK((!alive || sh.state() != before));
            clear_marks(t);
        }
    }
}

TEST_CASE("agent shell: nothing a command controls runs outside the cage, the shell keeps its state and its cd",
          "[agent-shell]") {
    for (User u : {User::root, User::nobody})
        for (std::string policy : {"default", "forge", "strict"})
            for (std::string agent : {"claude", "hermes"}) {
                Tree t;
                AgentShell sh(u, t);
                const std::string who = agent + ", " + policy + (u == User::root ? ", root" : ", nobody");
                const std::string baseline = sh.state();
                for (const Attack& a : kAttacks) {
                    INFO(who << ": " << a.name);
                    bool last_ran = false;
                    for (const auto& c : a.calls) {
                        std::string cmd = filled(c, t, t.outside + "/pwned");
                        auto runs = through_hook(agent, policy, u, t, cmd, sh.pwd());
                        INFO(cmd << "\n  runs as: " << runs.value_or("(refused)"));
                        if (runs) REQUIRE(sh.run(*runs));  // the shell is still there
                        last_ran = runs.has_value();
                    }
                    CHECK(marks_left(t).empty());
                    CHECK(sh.state() == baseline);
                    // A leading cd that ran moved the shell into the workspace's sub, CDPATH or not.
                    if (last_ran && a.calls.back().starts_with("cd sub")) CHECK(sh.pwd() == t.ws + "/sub");
                    clear_marks(t);
                    REQUIRE(sh.run("builtin cd '" + t.ws + "' && builtin dirs -c"));
                }
                // The legitimate path beside them: the agent's shell moves, the rest runs caged.
                INFO(who);
                auto runs = through_hook(agent, policy, u, t, "cd sub && ls", t.ws);
                REQUIRE(runs);
                CHECK(runs->starts_with("builtin cd './sub' && '"));
                auto out = sh.run(*runs);
                REQUIRE(out);
                CHECK(out->find("inside-sub.txt") != std::string::npos);
                CHECK(sh.pwd() == t.ws + "/sub");
                auto back = through_hook(agent, policy, u, t, "cd ..", t.ws + "/sub");
                REQUIRE(back);
                CHECK(*back == "builtin cd '..'");
                REQUIRE(sh.run(*back));
                CHECK(sh.pwd() == t.ws);
                CHECK(sh.state() == baseline);
            }
}
