// `toolcage hook` as a Claude Code PreToolUse command hook.
#include <filesystem>

#include <catch2/catch.hpp>

#include "fixture.h"
#include "hook/classify/text.h"
#include "hook/shell/ast.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

json decision_of(const RunResult& r) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    json out = parse_out(r);
    REQUIRE(out.is_object());
    REQUIRE(out.contains("hookSpecificOutput"));
    json h = out["hookSpecificOutput"];
    CHECK(h["hookEventName"] == "PreToolUse");
    CHECK(h["permissionDecisionReason"].get<std::string>().starts_with("toolcage: "));
    return h;
}

void require_failure(const RunResult& r, const std::string& needle) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.starts_with("toolcage: "));
    CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("claude: a read-only Bash command is allowed, rewritten into the read-only cage", "[claude]") {
    HookFixture f;
    json h = decision_of(f.hook(claude_bash("git status", f.ws), {"--agent", "claude"}));
    CHECK(h["permissionDecision"] == "allow");
    REQUIRE(h.contains("updatedInput"));
    CHECK(h["updatedInput"]["description"] == "Run a command");
    std::string rw = h["updatedInput"]["command"];
    CHECK(with_step_id_as_id(rw) == "'" + std::string(TOOLCAGE_BIN) + "' run --policy 'default' --step-id ID --workdir '" + f.ws +
                    "' --workspace '" + f.ws + "' --read-only -- /bin/bash -c 'git status'");
    CHECK(h["permissionDecisionReason"].get<std::string>().find("read-only cage") != std::string::npos);
    // The decision log keeps the classifier's verdict and rule.
    std::string log = toolcage::test::read_file(f.log);
    CHECK(log.find("\"verdict\":\"allow\"") != std::string::npos);
    CHECK(log.find("\"rule\":\"readonly.git\"") != std::string::npos);
}

TEST_CASE("claude: a cd alone runs in Claude Code's shell in toolcage's words, other builtins in the read-only "
          "cage, and every allowed command under allow_runs bare as sent",
          "[claude]") {
    HookFixture f;
    json cd = decision_of(f.hook(claude_bash("cd src", f.ws)));
    CHECK(cd["permissionDecision"] == "allow");
    CHECK(cd["updatedInput"]["command"] == "builtin cd './src'");
    json again = decision_of(f.hook(claude_bash("builtin cd './src'", f.ws)));
    CHECK(again["permissionDecision"] == "allow");
    CHECK_FALSE(again.contains("updatedInput"));
    for (const char* c : {"pwd", "echo hi && export A=1", "test -v 'a[$(id)]'"}) {
        json h = decision_of(f.hook(claude_bash(c, f.ws)));
        INFO(c);
        CHECK(h["permissionDecision"] == "allow");
        CHECK(h["updatedInput"]["command"].get<std::string>().ends_with(
            " --read-only -- /bin/bash -c " + toolcage::classify::detail::single_quoted(c)));
    }
    std::string bare = f.root / "bare.json";
    toolcage::test::write_file(bare, R"({"name": "bare", "extends": "default", "allow_runs": "bare"})");
    json h = decision_of(f.hook(claude_bash("git status", f.ws), {"--policy", bare}));
    CHECK(h["permissionDecision"] == "allow");
    CHECK_FALSE(h.contains("updatedInput"));
}

TEST_CASE("claude: a leading cd stays in Claude Code's shell, the rest goes in the cage", "[claude]") {
    HookFixture f;
    json h = decision_of(f.hook(claude_bash("cd sub && ls -la", f.ws)));
    CHECK(h["permissionDecision"] == "allow");
    CHECK(with_step_id_as_id(h["updatedInput"]["command"]) == "builtin cd './sub' && '" + std::string(TOOLCAGE_BIN) +
                                              "' run --policy 'default' --step-id ID --workspace '" + f.ws +
                                              "' --read-only -- /bin/bash -c 'ls -la'");
    json c = decision_of(f.hook(claude_bash("cd sub && make test", f.ws)));
    CHECK(with_step_id_as_id(c["updatedInput"]["command"]) == "builtin cd './sub' && '" + std::string(TOOLCAGE_BIN) +
                                              "' run --policy 'default' --step-id ID --workspace '" + f.ws +
                                              "' -- /bin/bash -c 'make test'");
}

TEST_CASE("claude: in the home directory there is no workspace: a command to cage is refused, ls runs read-only",
          "[claude]") {
    HookFixture f;
    toolcage::test::make_dirs(f.home + "/proj");
    // No directory there may be a workspace: an approval could not cage it, so no question.
    json make = decision_of(f.hook(claude_bash("make", f.home)));
    CHECK(make["permissionDecision"] == "deny");
    CHECK_FALSE(make.contains("updatedInput"));
    const std::string why = make["permissionDecisionReason"].get<std::string>();
    CHECK(why.find("hook.no-workspace") != std::string::npos);
    CHECK(why.find(f.home + " is the home directory, so it cannot be a workspace") != std::string::npos);
    // Reading needs no workspace: ls runs in the read-only cage where the agent is, unasked.
    json ls = decision_of(f.hook(claude_bash("ls", f.home)));
    CHECK(ls["permissionDecision"] == "allow");
    CHECK(with_step_id_as_id(ls["updatedInput"]["command"]) == "'" + std::string(TOOLCAGE_BIN) +
                                                                   "' run --policy 'default' --step-id ID --workdir '" +
                                                                   f.home + "' --read-only -- /bin/bash -c 'ls'");
    // Below it, a directory outside any project is none either (the agent chose its cwd): a
    // person may approve it as the workspace, and what is approved runs caged there; a project
    // is one; builtins still run.
    json plain = decision_of(f.hook(claude_bash("make", f.home + "/proj")));
    CHECK(plain["permissionDecision"] == "ask");
    CHECK(plain["updatedInput"]["command"].get<std::string>().find("--workspace '" + f.home + "/proj'") !=
          std::string::npos);
    CHECK(plain["permissionDecisionReason"].get<std::string>().find(
              f.home + "/proj is a directory of the home outside any project and outside the policy's work roots") !=
          std::string::npos);
    CHECK(decision_of(f.hook(claude_bash("ls", f.home + "/proj")))["permissionDecision"] == "allow");
    for (const char* d : {"/.ssh", "/.config", "/.claude"}) {
        toolcage::test::make_dirs(f.home + d);
        INFO(d);
        // Inside a dot-directory or an agent's configuration even a read is refused: the
        // read-only cage would read all of it, and no cage may write it.
        for (const char* c : {"make", "ls"}) {
            json dot = decision_of(f.hook(claude_bash(c, f.home + d)));
            CHECK(dot["permissionDecision"] == "deny");
            CHECK(dot["permissionDecisionReason"].get<std::string>().find("hook.no-workspace") != std::string::npos);
        }
    }
    toolcage::test::write_file(f.home + "/proj/Makefile", "all:\n");
    json p = decision_of(f.hook(claude_bash("ls", f.home + "/proj")));
    CHECK(p["updatedInput"]["command"].get<std::string>().find("--workspace '" + f.home + "/proj'") != std::string::npos);
    CHECK(decision_of(f.hook(claude_bash("pwd", f.home)))["permissionDecision"] == "allow");
}

TEST_CASE("claude: a caged command is allowed with the whole input, command rewritten", "[claude]") {
    HookFixture f;
    std::string cmd = "pip install -r requirements.txt";
    json h = decision_of(f.hook(claude_bash(cmd, f.ws)));  // agent found from the shape
    CHECK(h["permissionDecision"] == "allow");
    json u = h["updatedInput"];
    CHECK(u["description"] == "Run a command");
    CHECK(u["timeout"] == 120000);
    CHECK(u["run_in_background"] == false);
    std::string rw = u["command"];
    auto p = toolcage::shell::parse(rw);
    REQUIRE(p.ok);
    const auto& words = p.script.items[0].and_or.pipelines[0].commands[0].words;
    CHECK(words[0].literal() == TOOLCAGE_BIN);
    CHECK(words[4].literal() == "--step-id");
    CHECK(words[7].literal() == f.ws);
    CHECK(words.back().literal() == cmd);
}

TEST_CASE("claude: destructive commands are denied, asked ones asked", "[claude]") {
    HookFixture f;
    CHECK(decision_of(f.hook(claude_bash("git push --force origin main", f.ws)))["permissionDecision"] == "deny");
    json ask = decision_of(f.hook(claude_bash("echo ask-me", f.ws), {"--policy", f.ask_policy(false)}));
    CHECK(ask["permissionDecision"] == "ask");
    CHECK(ask["permissionDecisionReason"].get<std::string>().find("test.ask-me") != std::string::npos);
}

TEST_CASE("claude: an ask for a command toolcage would cage carries the cage, so that what a person approves "
          "runs caged",
          "[claude]") {
    HookFixture f;
    std::string on_cage_ask = f.root / "on-cage-ask.json";
    toolcage::test::write_file(on_cage_ask, R"({"name": "on-cage-ask", "extends": "default", "on_cage": "ask"})");
    std::string rule_ask = f.ask_policy(false);
    for (const auto& [cmd, policy] : {std::pair<std::string, std::string>{"make test", on_cage_ask},
                                      {"echo ask-me", rule_ask}}) {
        INFO(cmd);
        json h = decision_of(f.hook(claude_bash(cmd, f.ws), {"--policy", policy}));
        CHECK(h["permissionDecision"] == "ask");
        REQUIRE(h.contains("updatedInput"));
        json u = h["updatedInput"];
        CHECK(u["description"] == "Run a command");  // the whole input, only the command changed
        CHECK(u["timeout"] == 120000);
        std::string rw = u["command"];
        CHECK(with_step_id_as_id(rw) == "'" + std::string(TOOLCAGE_BIN) + "' run --policy '" + policy +
                                            "' --step-id ID --workdir '" + f.ws + "' --workspace '" + f.ws +
                                            "' -- /bin/bash -c " + toolcage::classify::detail::single_quoted(cmd));
        CHECK(h["permissionDecisionReason"].get<std::string>().find("runs inside toolcage's cage") != std::string::npos);
    }
    // A file write asked about has no command to rewrite: asked as it is.
    json w = decision_of(f.hook(claude_payload("Write", {{"file_path", "/tmp/toolcage-never-written"}, {"content", "x"}}, f.ws)));
    CHECK(w["permissionDecision"] == "ask");
    CHECK_FALSE(w.contains("updatedInput"));
}

TEST_CASE("claude: a Write of a 2 MiB file is answered like any other", "[claude]") {
    HookFixture f;
    const std::string content(2u << 20, 'x');
    auto in_ws = f.hook(claude_payload("Write", {{"file_path", f.ws + "/big.txt"}, {"content", content}}, f.ws));
    INFO(in_ws.err);
    CHECK(in_ws.exit_code == 0);
    CHECK(in_ws.out == "{}\n");
    auto out = f.hook(claude_payload("Write", {{"file_path", f.home + "/.bashrc"}, {"content", content}}, f.ws));
    CHECK(decision_of(out)["permissionDecision"] == "deny");
}

TEST_CASE("claude: file edits outside the workspace or into its settings are denied", "[claude]") {
    HookFixture f;
    auto in_ws = f.hook(claude_payload("Write", {{"file_path", f.ws + "/a.txt"}, {"content", "x"}}, f.ws));
    CHECK(in_ws.exit_code == 0);
    CHECK(in_ws.out == "{}\n");  // left to Claude Code's own permission mode
    CHECK(decision_of(f.hook(claude_payload("Edit",
                                            {{"file_path", f.home + "/.ssh/authorized_keys"},
                                             {"old_string", "a"},
                                             {"new_string", "b"}},
                                            f.ws)))["permissionDecision"] == "deny");
    CHECK(decision_of(f.hook(claude_payload("Write", {{"file_path", f.ws + "/.claude/settings.json"}, {"content", "{}"}},
                                            f.ws)))["permissionDecision"] == "deny");
    CHECK(decision_of(f.hook(claude_payload("MultiEdit", {{"file_path", "/etc/hosts"}, {"edits", json::array()}},
                                            f.ws)))["permissionDecision"] == "deny");
    CHECK(decision_of(f.hook(claude_payload("NotebookEdit", {{"notebook_path", "/usr/share/x.ipynb"}, {"new_source", ""}},
                                            f.ws)))["permissionDecision"] == "deny");
}

TEST_CASE("claude: tools toolcage does not inspect get no decision", "[claude]") {
    HookFixture f;
    auto r = f.hook(claude_payload("Read", {{"file_path", "/etc/passwd"}}, f.ws));
    CHECK(r.exit_code == 0);
    CHECK(r.out == "{}\n");
}

TEST_CASE("claude: a broken payload blocks with exit 2 and a reason on stderr", "[claude][errors]") {
    HookFixture f;
    json no_cwd = claude_bash("ls", f.ws);
    no_cwd.erase("cwd");
    require_failure(f.hook(no_cwd), "/cwd");
    json no_cmd = claude_payload("Bash", {{"description", "x"}}, f.ws);
    require_failure(f.hook(no_cmd), "/tool_input/command");
    json no_path = claude_payload("Write", {{"content", "x"}}, f.ws);
    require_failure(f.hook(no_path), "/tool_input/file_path");
    require_failure(f.hook(std::string("{\"hook_event_name\": \"PreToolUse\""), {"--agent", "claude"}),
                    "not valid JSON");
    require_failure(f.hook(claude_bash("ls", f.ws), {"--policy", "does-not-exist"}), "does-not-exist");
}

// CI runners and containers put HOME under /tmp or /var/tmp: the home is still the home, and the
// workspace's parents are not scratch, for the agent's file tools as for the shell.
TEST_CASE("claude: a home or a workspace under /tmp is not temp", "[claude][paths]") {
    for (const std::string home_parent : {"/tmp", "/var/tmp", TOOLCAGE_HOOK_TEST_DIR}) {
        for (const std::string ws_parent : {"/tmp", "/var/tmp", TOOLCAGE_HOOK_TEST_DIR}) {
            make_dirs(home_parent);
            make_dirs(ws_parent);
            TempDir home_root{home_parent};
            TempDir ws_root{ws_parent};
            HookFixture f;
            f.home = home_root / "home";
            f.ws = ws_root / "proj";
            make_dirs(f.home);
            make_dirs(f.ws + "/.git");
            f.env["HOME"] = f.home;
            INFO("HOME=" << f.home << " workspace=" << f.ws);
            auto answer = [&](const json& payload) {
                return decision_of(f.hook(payload, {"--agent", "claude"}))["permissionDecision"];
            };
            for (const char* cmd : {"rm -rf ~", "rm -rf \"$HOME\"", "rm -rf ..", "echo x > ~/.bashrc"}) {
                INFO(cmd);
                json d = answer(claude_bash(cmd, f.ws));
                CHECK((d == "deny" || d == "ask"));
            }
            for (const char* file : {"/.bashrc", "/notes.txt", "/.ssh/authorized_keys"}) {
                INFO(file);
                json d = answer(claude_payload("Write", {{"file_path", f.home + file}, {"content", "x"}}, f.ws));
                CHECK((d == "deny" || d == "ask"));
            }
            // The workspace itself is still writable (left to Claude Code's own permission mode),
            // and a build directory in it is deleted in the cage.
            auto in_ws = f.hook(claude_payload("Write", {{"file_path", f.ws + "/a.txt"}, {"content", "x"}}, f.ws),
                                {"--agent", "claude"});
            CHECK(in_ws.out == "{}\n");
            json caged = decision_of(f.hook(claude_bash("rm -rf ./build", f.ws), {"--agent", "claude"}));
            CHECK(caged["permissionDecision"] == "allow");
            CHECK(caged["updatedInput"]["command"].get<std::string>().find(" run --policy ") != std::string::npos);
        }
    }
}

TEST_CASE("claude: Read and Grep of credentials are judged as the terminal's reads", "[claude]") {
    HookFixture f;
    toolcage::test::make_dirs(f.home + "/.ssh");
    toolcage::test::write_file(f.home + "/.ssh/id_ed25519", "key");
    json r = decision_of(f.hook(claude_payload("Read", {{"file_path", f.home + "/.ssh/id_ed25519"}}, f.ws)));
    CHECK(r["permissionDecision"] == "deny");
    CHECK(r["permissionDecisionReason"].get<std::string>().find("secret.read") != std::string::npos);
    json g = decision_of(f.hook(claude_payload("Grep", {{"pattern", "BEGIN"}, {"path", f.home}}, f.ws)));
    CHECK(g["permissionDecision"] == "deny");
    // The everyday reads are left to Claude Code's own permission mode.
    toolcage::test::write_file(f.ws + "/README.md", "x");
    CHECK(f.hook(claude_payload("Read", {{"file_path", f.ws + "/README.md"}}, f.ws)).out == "{}\n");
    CHECK(f.hook(claude_payload("Grep", {{"pattern", "TODO"}}, f.ws)).out == "{}\n");
}

TEST_CASE("claude: Glob lists names below the directory its pattern's literal part names", "[claude]") {
    HookFixture f;
    toolcage::test::make_dirs(f.home + "/.ssh");
    toolcage::test::write_file(f.home + "/.ssh/id_ed25519", "key");
    toolcage::test::make_dirs(f.ws + "/src");
    // Out of the workspace into the credentials: by its path, by `..` in the pattern, by an
    // absolute pattern.
    const std::string up = std::filesystem::relative(f.home, f.ws).string() + "/.ssh/*";
    for (const json& input : {json{{"pattern", "*"}, {"path", f.home + "/.ssh"}}, json{{"pattern", up}},
                              json{{"pattern", f.home + "/.ssh/id*"}}, json{{"pattern", "**/*"}, {"path", f.home}}}) {
        INFO(input.dump());
        json g = decision_of(f.hook(claude_payload("Glob", input, f.ws)));
        CHECK(g["permissionDecision"] == "deny");
    }
    // In the workspace: left to Claude Code's own permission mode.
    CHECK(f.hook(claude_payload("Glob", {{"pattern", "src/**/*.cpp"}}, f.ws)).out == "{}\n");
    CHECK(f.hook(claude_payload("Glob", {{"pattern", "*.md"}, {"path", f.ws + "/src"}}, f.ws)).out == "{}\n");
}

TEST_CASE("claude: a command calling toolcage runs in the cage that writes; a path named toolcage is only a path",
          "[claude]") {
    HookFixture f;
    toolcage::test::make_dirs(f.ws + "/toolcage-notes");
    for (const std::string c : {"toolcage log", "env toolcage doctor", "/opt/x/toolcage-relay --help"}) {
        INFO(c);
        json d = decision_of(f.hook(claude_bash(c, f.ws)));
        CHECK(d["permissionDecision"] == "allow");
        const std::string rewrite = d["updatedInput"]["command"];
        CHECK(rewrite.find(" run --policy") != std::string::npos);
        CHECK(rewrite.find("--read-only") == std::string::npos);
    }
    for (const std::string c : {"ls toolcage-notes", "cat toolcage-notes/x 2>/dev/null | grep toolcage"}) {
        INFO(c);
        json d = decision_of(f.hook(claude_bash(c, f.ws)));
        CHECK(d["permissionDecision"] == "allow");
        CHECK(d["updatedInput"]["command"].get<std::string>().find("--read-only") != std::string::npos);
    }
}
