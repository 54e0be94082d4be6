// The command line around the hook, through the built binary: the slips it fixes (a mistyped
// command or option, a command without `--`), --version everywhere, `toolcage log` and its
// numbers against the log itself, `toolcage explain`, and the policy tooling.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "common/user_home.h"
#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

RunResult tc(const HookFixture& f, const std::vector<std::string>& args) {
    return run_binary(TOOLCAGE_BIN, args, "", f.env);
}

}  // namespace

TEST_CASE("a mistyped command or option gets the nearest real one", "[cli]") {
    HookFixture f;
    RunResult r = tc(f, {"chek", "--", "ls"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("did you mean `toolcage check`?") != std::string::npos);
    r = tc(f, {"poilcy", "list"});
    CHECK(r.err.find("did you mean `toolcage policy`?") != std::string::npos);
    r = tc(f, {"frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("the commands are") != std::string::npos);
    r = tc(f, {"doctor", "--jsn"});
    CHECK(r.err.find("did you mean --json?") != std::string::npos);
    r = tc(f, {"log", "--stat"});
    CHECK(r.err.find("did you mean --stats?") != std::string::npos);
    r = tc(f, {"policy", "rules", "--lnog"});
    CHECK(r.err.find("did you mean --long?") != std::string::npos);
    // The subcommands of a subcommand are named too.
    r = tc(f, {"policy", "frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("toolcage policy: unknown command \"frobnicate\"; the commands are ") != std::string::npos);
    CHECK(r.err.find("validate") != std::string::npos);
    r = tc(f, {"install", "cursor"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("toolcage install: unknown command \"cursor\"; the commands are ") != std::string::npos);
    CHECK(r.err.find("claude") != std::string::npos);
    r = tc(f, {"policy", "valdiate", "x.json"});
    CHECK(r.err.find("did you mean `toolcage policy validate`?") != std::string::npos);
}

TEST_CASE("a slip toolcage recognises gets its own message alone", "[cli]") {
    HookFixture f;
    for (auto args : std::vector<std::vector<std::string>>{{"chek", "--", "ls"},
                                                           {"check", "--polcy", "forge", "--", "ls"},
                                                           {"run", "ls", "-la"},
                                                           {"policy", "frobnicate"}}) {
        RunResult r = tc(f, args);
        INFO(args[0] << " " << args[1] << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.starts_with("toolcage"));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        for (const char* cli11 : {"A subcommand is required", "not expected", "--help for more", "required"})
            CHECK(r.err.find(cli11) == std::string::npos);
    }
}

TEST_CASE("a command given to run without -- gets the fix", "[cli]") {
    HookFixture f;
    RunResult r = tc(f, {"run", "ls", "-la"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("put -- before the command: toolcage run -- ls -la") != std::string::npos);
    r = tc(f, {"run", "--policy", "default", "ls", "-la"});
    CHECK(r.err.find("toolcage run --policy default -- ls -la") != std::string::npos);
    r = tc(f, {"check", "grep", "-rn", "x"});
    CHECK(r.err.find("toolcage check -- grep -rn x") != std::string::npos);
}

TEST_CASE("one clear error for each mistake in a file, a directory or a count given", "[cli]") {
    HookFixture f;
    RunResult r = tc(f, {"log", "-n", "0"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("1 or more") != std::string::npos);
    CHECK(r.err.size() < 300);  // no range of 300-digit numbers
    r = tc(f, {"log", "--file", f.ws});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is a directory") != std::string::npos);
    r = tc(f, {"log", "--file", f.ws + "/missing.jsonl"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no such file") != std::string::npos);
    r = tc(f, {"check", "--policy", f.ws, "--", "ls"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(f.ws + ": is a directory, not a policy file") != std::string::npos);
    r = tc(f, {"policy", "which", "--profile-dir", "/etc/passwd"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is a file, not a directory") != std::string::npos);
}

TEST_CASE("check reads a relative --cwd from where it runs, and takes --workdir as run does", "[cli]") {
    HookFixture f;
    std::string rel = std::filesystem::relative(f.ws, std::filesystem::current_path()).string();
    for (const char* cmd : {"rm -rf out", "ls", "npm install"}) {
        INFO(cmd << " in " << rel);
        RunResult abs = tc(f, {"check", "--json", "--cwd", f.ws, "--", cmd});
        RunResult relative = tc(f, {"check", "--json", "--cwd", rel, "--", cmd});
        RunResult dotted = tc(f, {"check", "--json", "--workdir", rel + "/./", "--", cmd});
        REQUIRE(abs.exit_code == 0);
        CHECK(relative.out == abs.out);
        CHECK(dotted.out == abs.out);
    }
    RunResult batch = tc(f, {"check", "--batch", "--", "ls"});
    CHECK(batch.exit_code == 2);
    CHECK(batch.err.find("give no command after --") != std::string::npos);
}

TEST_CASE("--json output stays JSON for bytes that are not UTF-8", "[cli]") {
    HookFixture f;
    RunResult r = tc(f, {"check", "--json", "--", "cat \xff\xfe.txt"});
    INFO(r.err);
    CHECK(r.err.find("internal error") == std::string::npos);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j.contains("verdict"));
}

TEST_CASE("--version on toolcage, its subcommands and toolcage-relay", "[cli]") {
    HookFixture f;
    for (auto args : std::vector<std::vector<std::string>>{{"--version"},
                                                           {"check", "--version"},
                                                           {"policy", "--version"},
                                                           {"policy", "rules", "--version"},
                                                           {"log", "--version"},
                                                           {"run", "--version"},
                                                           {"doctor", "--version"}}) {
        RunResult r = tc(f, args);
        INFO(args[0] << " " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.starts_with("toolcage "));
    }
    RunResult r = run_binary(TOOLCAGE_RELAY_BIN, {"--version"}, "", f.env);
    CHECK(r.exit_code == 0);
    CHECK(r.out.starts_with("toolcage-relay "));
}

TEST_CASE("toolcage log --stats counts what the log holds", "[cli][log]") {
    HookFixture f;
    // A log of a few thousand decisions, made here with known counts, a torn line, a step line
    // and audit-mode entries.
    const std::vector<std::string> verdicts = {"allow", "cage", "ask", "deny"};
    const std::vector<std::string> agents = {"hermes", "claude", "openclaw"};
    const std::vector<std::string> commands = {"git status", "npm install && npm test",
                                               "rm -rf build", "FOO=1 make -j4",
                                               "sudo apt-get update | tee log"};
    std::map<std::string, int> by_verdict, by_agent, by_rule, by_program;
    std::ostringstream log;
    std::mt19937 rng(7);
    const int n = 3000;
    int audit = 0;
    for (int i = 0; i < n; ++i) {
        std::string v = verdicts[rng() % 4], a = agents[rng() % 3], c = commands[rng() % 5];
        std::string rule = "rule." + std::to_string(rng() % 7);
        bool aud = rng() % 5 == 0;
        json j = {{"time", "2026-11-30T10:00:00.000Z"},
                  {"agent", a},
                  {"tool", "terminal"},
                  {"kind", "shell"},
                  {"verdict", v},
                  {"rule", rule},
                  {"reason", "r"},
                  {"command", c}};
        if (aud) {
            j["mode"] = "audit";
            ++audit;
        }
        log << j.dump() << '\n';
        ++by_verdict[v];
        ++by_agent[a];
        ++by_rule[rule];
        if (c == "git status") ++by_program["git"];
        if (c == "npm install && npm test") ++by_program["npm"];
        if (c == "rm -rf build") ++by_program["rm"];
        if (c == "FOO=1 make -j4") ++by_program["make"];
        if (c.starts_with("sudo")) ++by_program["apt-get"], ++by_program["tee"];
        if (i == 100) log << "{\"time\": \"2026-11-30T10:00:00.000Z\", \"verd\n";  // torn
        if (i == 200)
            log << json{{"time", "2026-11-30T10:00:00.000Z"},
                        {"event", "step"},
                        {"tool", "run"},
                        {"status", 0},
                        {"command", "make"}}
                       .dump()
                << '\n';
    }
    write_file(f.log, log.str());
    RunResult r = tc(f, {"log", "--stats"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find(std::to_string(n) + " decisions, 1 caged steps, " + std::to_string(audit) +
                     " under audit mode") != std::string::npos);
    CHECK(r.out.find("1 unreadable lines") != std::string::npos);
    auto count_line = [&](int count, const std::string& name) {
        std::string s = std::to_string(count);
        return "  " + s + std::string(s.size() >= 8 ? 1 : 8 - s.size(), ' ') + name + "\n";
    };
    for (const auto& [k, c] : by_verdict) CHECK(r.out.find(count_line(c, k)) != std::string::npos);
    for (const auto& [k, c] : by_agent) CHECK(r.out.find(count_line(c, k)) != std::string::npos);
    for (const auto& [k, c] : by_rule) CHECK(r.out.find(count_line(c, k)) != std::string::npos);
    for (const auto& [k, c] : by_program) CHECK(r.out.find(count_line(c, k)) != std::string::npos);

    // Filters: --deny counts only the denials; --json passes lines through unchanged.
    RunResult d = tc(f, {"log", "--deny", "--stats"});
    CHECK(d.out.find(std::to_string(by_verdict["deny"]) + " decisions") != std::string::npos);
    RunResult js = tc(f, {"log", "--agent", "claude", "--json", "--all"});
    std::istringstream lines(js.out);
    std::string line;
    int claude = 0;
    while (std::getline(lines, line)) {
        CHECK(log.str().find(line + "\n") != std::string::npos);
        ++claude;
    }
    CHECK(claude == by_agent["claude"]);
}

TEST_CASE("toolcage log --stats counts the programs the shell parser finds, past wrappers",
          "[cli][log]") {
    HookFixture f;
    // Each command with the programs it runs; the words that are no program are never counted.
    const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
        {"for f in a b; do echo \"$f\"; done", {"echo"}},
        {"if test -f x; then ls -la; else pwd; fi", {"ls", "pwd", "test"}},
        {"cat <<EOF > notes.txt\nrm -rf /\nmake all\nEOF", {"cat"}},
        {"sudo -u bob ls /root", {"ls", "sudo"}},
        {"env FOO=1 nice -n 5 timeout 3 make -j4", {"env", "make", "nice", "timeout"}},
        {"find . -name '*.o' | xargs -n1 rm", {"find", "rm", "xargs"}},
        {"while read -r line; do grep -q x \"$line\"; done < list", {"grep", "read"}},
        {"bash -c 'git status && git diff'", {"bash", "git"}},
        {"echo 'unclosed", {"(not parsed)"}},
    };
    std::map<std::string, int> want;
    std::ostringstream log;
    for (int round = 0; round < 3; ++round)
        for (const auto& [command, programs] : commands) {
            log << json{{"time", "2026-11-30T10:00:00.000Z"}, {"agent", "claude"}, {"tool", "Bash"}, {"kind", "shell"},
                        {"verdict", "cage"}, {"rule", "r"}, {"reason", "r"}, {"command", command}}
                       .dump()
                << '\n';
            for (const auto& p : programs) ++want[p];
        }
    write_file(f.log, log.str());
    RunResult r = tc(f, {"log", "--stats", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::map<std::string, int> got = json::parse(r.out)["by_program"].get<std::map<std::string, int>>();
    CHECK(got == want);
    for (const char* not_a_program : {"do", "done", "then", "else", "fi", "bob", "a", "EOF", "-u", "FOO=1", "in"})
        CHECK(got.count(not_a_program) == 0);
}

TEST_CASE("toolcage log shows recent decisions as a table, filtered by verdict and time",
          "[cli][log]") {
    HookFixture f;
    f.hook(hermes_terminal("git status", f.ws));
    f.hook(hermes_terminal("rm -rf ~", f.ws));
    f.hook(hermes_terminal("npm install", f.ws));
    RunResult all = tc(f, {"log"});
    INFO(all.out << all.err);
    CHECK(all.out.find("git status") != std::string::npos);
    CHECK(all.out.find("rm -rf ~") != std::string::npos);
    RunResult deny = tc(f, {"log", "--deny"});
    CHECK(deny.out.find("rm -rf ~") != std::string::npos);
    CHECK(deny.out.find("git status") == std::string::npos);
    CHECK(deny.out.find("rm.home") != std::string::npos);
    RunResult cage = tc(f, {"log", "--cage", "--since", "1h"});
    CHECK(cage.out.find("npm install") != std::string::npos);
    CHECK(cage.out.find("rm -rf") == std::string::npos);
    RunResult future = tc(f, {"log", "--since", "2999-01-01"});
    CHECK(future.out.find("no matching entries") != std::string::npos);
    RunResult bad = tc(f, {"log", "--since", "yesterday"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--since \"yesterday\"") != std::string::npos);
}

TEST_CASE("toolcage explain names the programs, the deciding rule and the override",
          "[cli][explain]") {
    HookFixture f;
    RunResult r =
        tc(f, {"explain", "--cwd", f.ws, "--", "git status && git push --force origin main"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("programs:  git, git") != std::string::npos);
    CHECK(r.out.find("verdict:   deny (rule git.push-force)") != std::string::npos);
    CHECK(r.out.find("\"overrides\": {\"git.push-force\": \"ask\"}") != std::string::npos);
    RunResult c = tc(f, {"check", "--explain", "--cwd", f.ws, "--", "ls -la"});
    CHECK(c.out.find("verdict:   allow") != std::string::npos);
    CHECK(c.out.find("readonly.ls") != std::string::npos);
}

TEST_CASE("toolcage explain takes --workdir as check and run do, and names its own unknown options",
          "[cli][explain]") {
    HookFixture f;
    for (const char* cmd : {"rm -rf out", "npm install"}) {
        RunResult cwd = tc(f, {"explain", "--json", "--cwd", f.ws, "--", cmd});
        RunResult workdir = tc(f, {"explain", "--json", "--workdir", f.ws, "--", cmd});
        INFO(cmd << ": " << cwd.err << workdir.err);
        REQUIRE(cwd.exit_code == 0);
        CHECK(workdir.out == cwd.out);
        CHECK(json::parse(workdir.out)["workspace"] == json::parse(cwd.out)["workspace"]);
    }
    RunResult bad = tc(f, {"explain", "--frobnicate-the-widgets", "--", "ls"});
    INFO(bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err ==
          "toolcage explain: unknown option \"--frobnicate-the-widgets\"; see `toolcage explain --help` for the "
          "options\n");
    RunResult near = tc(f, {"explain", "--workdri", f.ws, "--", "ls"});
    CHECK(near.err == "toolcage explain: unknown option \"--workdri\"; did you mean --workdir?\n");
}

TEST_CASE("every command's messages start with its own words", "[cli]") {
    HookFixture f;
    // An option no command has: the line names the command as typed, never a part of it alone.
    for (std::vector<std::string> words : std::vector<std::vector<std::string>>{
             {"check"}, {"explain"}, {"log"}, {"run"}, {"doctor"}, {"policy", "validate"}, {"policy", "rules"},
             {"install", "claude"}, {"install", "hermes"}, {"install", "openclaw"}, {"uninstall", "hermes"},
             {"uninstall", "claude"}}) {
        std::string typed = "toolcage";
        for (const auto& w : words) typed += " " + w;
        std::vector<std::string> args = words;
        args.insert(args.end(), {"--zzz-no-such-option", "--", "ls"});
        RunResult r = tc(f, args);
        INFO(typed << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err == typed + ": unknown option \"--zzz-no-such-option\"; see `" + typed +
                           " --help` for the options\n");
    }
    // An error a command throws: its words once, whatever the message began with.
    RunResult both = tc(f, {"install", "hermes", "--profile", "work", "--hermes-home", f.hermes_home});
    CHECK(both.exit_code == 2);
    CHECK(both.err.starts_with("toolcage install hermes: "));
    RunResult missing = tc(f, {"policy", "install", f.ws + "/missing.json"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.starts_with("toolcage policy install: "));
    CHECK(missing.err.find("policy install: policy install") == std::string::npos);
    RunResult policy = tc(f, {"policy"});
    CHECK(policy.exit_code == 2);
    CHECK(policy.err.starts_with("toolcage policy: name one of its commands: list, show, validate"));
    RunResult install = tc(f, {"install", "--dry-run"});
    CHECK(install.err.starts_with("toolcage install: name one of its commands: hermes, claude, openclaw"));
    RunResult nothing = tc(f, {"explain"});
    CHECK(nothing.err.starts_with("toolcage explain: no command given"));
    RunResult check_nothing = tc(f, {"check", "--explain"});
    CHECK(check_nothing.err.starts_with("toolcage check: "));
    // The hook's refusal keeps the prefix every agent's message carries.
    RunResult hook = run_binary(TOOLCAGE_BIN, {"hook", "--agent", "hermes", "--policy", f.ws + "/missing.json"},
                                hermes_terminal("ls", f.ws).dump(), f.env);
    CHECK(hook.exit_code == 2);
    CHECK(hook.err.starts_with("toolcage: "));
}

TEST_CASE("explain says how to point each installed agent at another policy", "[cli][explain]") {
    HookFixture f;
    // No agent in the workspace's Claude Code settings: the install command to run with it.
    RunResult none = tc(f, {"explain", "--cwd", f.ws, "--", "git push --force origin main"});
    INFO(none.out << none.err);
    REQUIRE(none.exit_code == 0);
    const std::string settings = f.ws + "/.claude/settings.json";
    CHECK(none.out.find(settings) == std::string::npos);
    make_dirs(f.ws + "/.claude");
    // Claude Code's project settings run the hook: explain names the exact command for that file,
    // and running it (with a policy's name for NAME) points the hook at that policy.
    RunResult in = tc(f, {"install", "claude", "--settings", settings, "--claude-version", "2.1.0"});
    INFO(in.out << in.err);
    REQUIRE(in.exit_code == 0);
    RunResult e = tc(f, {"explain", "--cwd", f.ws, "--", "git push --force origin main"});
    INFO(e.out << e.err);
    REQUIRE(e.exit_code == 0);
    const std::string command = "toolcage install claude --settings " + settings + " --policy NAME";
    CHECK(e.out.find("claude (" + settings + "): " + command + "\n") != std::string::npos);
    json j = json::parse(tc(f, {"explain", "--json", "--cwd", f.ws, "--", "git push --force origin main"}).out);
    bool listed = false;
    for (const auto& a : j["to_change"]["select"])
        if (a["where"] == settings) {
            listed = true;
            CHECK(a["agent"] == "claude");
            CHECK(a["command"] == command);
        }
    CHECK(listed);
    std::vector<std::string> words = {"install", "claude", "--settings", settings, "--policy", "strict",
                                      "--claude-version", "2.1.0"};
    RunResult sel = tc(f, words);
    INFO(sel.out << sel.err);
    REQUIRE(sel.exit_code == 0);
    json s = json::parse(read_file(settings));
    std::string hook = s["hooks"]["PreToolUse"][0]["hooks"][0]["command"];
    CHECK(hook.find("--policy strict") != std::string::npos);
}

TEST_CASE("--json gives one JSON object for explain, check --explain and log --stats",
          "[cli][explain][log]") {
    HookFixture f;
    RunResult e = tc(f, {"explain", "--json", "--cwd", f.ws, "--", "git status && git push --force origin main"});
    INFO(e.out << e.err);
    REQUIRE(e.exit_code == 0);
    json ej = json::parse(e.out);
    CHECK(ej["verdict"] == "deny");
    CHECK(ej["rule"] == "git.push-force");
    CHECK(ej["programs"] == json::array({"git", "git"}));
    CHECK(ej["to_change"]["overrides"]["git.push-force"] == "ask");
    CHECK(ej["parsed"] == true);
    CHECK(!ej["rules_fired"].empty());

    RunResult c = tc(f, {"check", "--explain", "--json", "--cwd", f.ws, "--", "ls -la"});
    INFO(c.out << c.err);
    REQUIRE(c.exit_code == 0);
    json cj = json::parse(c.out);
    CHECK(cj["verdict"] == "allow");
    CHECK(cj["rule"].get<std::string>().starts_with("readonly."));

    f.hook(hermes_terminal("git status", f.ws));
    f.hook(hermes_terminal("rm -rf ~", f.ws));
    RunResult s = tc(f, {"log", "--stats", "--json"});
    INFO(s.out << s.err);
    REQUIRE(s.exit_code == 0);
    json sj = json::parse(s.out);
    CHECK(sj["decisions"] == 2);
    CHECK(sj["by_verdict"]["deny"] == 1);
    CHECK(sj["by_verdict"]["cage"] == 0);
    CHECK(sj["by_agent"]["hermes"] == 2);
    CHECK(sj["by_program"]["git"] == 1);
    RunResult o = tc(f, {"log", "--stats", "--format", "ocsf"});
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("--stats") != std::string::npos);
}

TEST_CASE("policy rules --long and --json describe every built-in rule", "[cli][policy]") {
    HookFixture f;
    RunResult ids = tc(f, {"policy", "rules"});
    RunResult js = tc(f, {"policy", "rules", "--json"});
    json rules = json::parse(js.out);
    std::istringstream in(ids.out);
    std::string id;
    std::size_t n = 0;
    while (std::getline(in, id)) {
        REQUIRE(n < rules.size());
        CHECK(rules[n]["id"] == id);
        CHECK_FALSE(rules[n]["verdict"].get<std::string>().empty());
        CHECK_FALSE(rules[n]["matches"].get<std::string>().empty());
        CHECK_FALSE(rules[n]["reason"].get<std::string>().empty());
        ++n;
    }
    CHECK(n == rules.size());
    RunResult lng = tc(f, {"policy", "rules", "--long"});
    CHECK(lng.out.find("git.push-force") != std::string::npos);
    CHECK(lng.out.find("    matches: git push --force") != std::string::npos);
}

TEST_CASE("policy validate reports every error in one run, and takes an installed name",
          "[cli][policy]") {
    HookFixture f;
    std::string bad = f.root / "bad.json";
    write_file(bad, R"({"name": "bad", "mood": "x", "on_cage": "allow",
                        "overrides": {"no.such-rule": "allow", "git.push": "maybe"},
                        "cage": {"read": ["relative/path", "/ok", "{nowhere}/x"], "network": "wifi"},
                        "relay": {"allow": ["UPPER.example.com", "ok.example.com:99999"]}})");
    RunResult r = tc(f, {"policy", "validate", bad});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    // The unknown override id with the rest, not once they are fixed.
    for (const char* where : {"/mood", "/on_cage", "/overrides/git.push", "/overrides/no.such-rule", "/cage/read/0",
                              "/cage/read/2", "/cage/network", "/relay/allow/0", "/relay/allow/1"})
        CHECK(r.err.find(bad + ": " + where) != std::string::npos);
    CHECK(r.err.find("9 errors") != std::string::npos);

    // What `policy show` prints is a policy file that validates and decides the same.
    for (const char* name : {"default", "forge", "strict"}) {
        INFO(name);
        RunResult shown = tc(f, {"policy", "show", name});
        REQUIRE(shown.exit_code == 0);
        std::string copy = f.root / (std::string("shown-") + name + ".json");
        write_file(copy, shown.out);
        RunResult again = tc(f, {"policy", "validate", copy});
        INFO(again.err);
        CHECK(again.exit_code == 0);
        RunResult a = tc(f, {"check", "--json", "--policy", name, "--cwd", f.ws, "--", "npm install"});
        RunResult b = tc(f, {"check", "--json", "--policy", copy, "--cwd", f.ws, "--", "npm install"});
        CHECK(json::parse(a.out)["verdict"] == json::parse(b.out)["verdict"]);
    }

    RunResult ok = tc(f, {"policy", "validate", "forge"});
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find("valid (policy \"forge\")") != std::string::npos);
    RunResult unknown_id = tc(f, {"policy", "validate", f.ask_policy(false)});
    CHECK(unknown_id.exit_code == 0);
}

TEST_CASE("policy install validates and installs a policy of one's own", "[cli][policy]") {
    HookFixture f;
    // Into the user database's home, whatever HOME says (the agent's shell sets HOME), or, under
    // CTest, the suite's own state: a name of the test's own, removed afterwards.
    const std::string name = "test-" + f.root.path().substr(f.root.path().rfind('/') + 1);
    const std::string dir = toolcage::user_policy_dir();
    struct Remove {
        std::string path;
        ~Remove() { std::remove(path.c_str()); }
    } cleanup{dir + "/" + name + ".json"};
    std::string mine = f.root / (name + ".json");
    write_file(mine, R"({"extends": "default", "overrides": {"git.push": "ask"}})");
    RunResult r = tc(f, {"policy", "install", mine});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::string installed = dir + "/" + name + ".json";
    CHECK(read_file(installed) == read_file(mine));
    CHECK_FALSE(std::ifstream(f.home + "/.config/toolcage/profiles/" + name + ".json").good());
    RunResult shown = tc(f, {"policy", "show", name});
    CHECK(json::parse(shown.out)["overrides"]["git.push"] == "ask");
    // Used by name, as the hook finds it.
    RunResult chk = tc(f, {"check", "--policy", name, "--cwd", f.ws, "--json", "--", "git push"});
    CHECK(json::parse(chk.out)["verdict"] == "ask");

    CHECK(tc(f, {"policy", "install", mine}).exit_code == 2);  // exists: --force
    CHECK(tc(f, {"policy", "install", mine, "--force"}).exit_code == 0);
    RunResult shipped = tc(f, {"policy", "install", mine, "--name", "default"});
    CHECK(shipped.exit_code == 2);
    CHECK(shipped.err.find("shipped policy") != std::string::npos);

    std::string broken = f.root / "broken.json";
    write_file(
        broken,
        R"({"extends": "default", "cage": {"network": "wifi"}, "overrides": {"nope.rule": "allow"}})");
    RunResult b = tc(f, {"policy", "install", broken});
    CHECK(b.exit_code == 1);
    CHECK(b.err.find(broken + ": /cage/network") != std::string::npos);
    CHECK(b.err.find("nothing installed") != std::string::npos);
    CHECK_FALSE(std::ifstream(dir + "/broken.json").good());
}

TEST_CASE(
    "policy which exits non-zero when every call would be refused or the directory is missing",
    "[cli][policy]") {
    HookFixture f;
    CHECK(tc(f, {"policy", "which", "--profile-dir", f.hermes_home}).exit_code == 0);
    RunResult missing = tc(f, {"policy", "which", "--profile-dir", f.root / "no-such-profile"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.out.find("does not exist") != std::string::npos);
    write_file(f.hermes_home + "/SOUL.md", "<!-- toolcage: not-installed-anywhere -->\n");
    RunResult refused = tc(f, {"policy", "which", "--profile-dir", f.hermes_home});
    CHECK(refused.exit_code == 1);
    CHECK(refused.out.find("every call is refused") != std::string::npos);
}
