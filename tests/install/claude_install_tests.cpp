// `toolcage install claude` / `uninstall claude` against settings.json files in /tmp.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/install/harness.h"

using namespace toolcage::test;
using ojson = nlohmann::ordered_json;

namespace {

// A user's settings, four-space indented, with a hook of their own and other keys.
const std::string kSettings = R"json({
    "model": "opus",
    "permissions": {
        "allow": ["Bash(git status)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/audit.sh"}]
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Write",
                "hooks": [{"type": "command", "command": "prettier --write"}]
            }
        ]
    },
    "env": {"A": "1"}
}
)json";

Run install(const TempDir& d, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"install", "claude", "--settings",
                                  (d / "settings.json").string()};
    args.insert(args.end(), more.begin(), more.end());
    return run_toolcage(args, d.str());
}

Run uninstall(const TempDir& d) {
    return run_toolcage({"uninstall", "claude", "--settings", (d / "settings.json").string()},
                        d.str());
}

// A file toolcage will not edit: the exact JSON to merge by hand is printed, and it is the hook
// an install would have written (parsed back, not matched as text).
void check_lines_to_merge(const Run& r) {
    INFO(r.err);
    CHECK(r.code == 2);
    auto brace = r.err.find("\n{");
    REQUIRE(brace != std::string::npos);
    ojson snippet = ojson::parse(r.err.substr(brace + 1), nullptr, false);
    REQUIRE(snippet.is_object());
    const ojson& group = snippet["hooks"]["PreToolUse"][0];
    CHECK(group["matcher"] == "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob");
    std::string command = group["hooks"][0]["command"];
    CHECK(command.find("/toolcage hook --agent claude") != std::string::npos);
    CHECK(command.starts_with("/"));
    CHECK(r.err.find("Merge this into it by hand") != std::string::npos);
}

}  // namespace

TEST_CASE("install claude adds one PreToolUse group and keeps every other key and hook",
          "[install][claude]") {
    TempDir d;
    write_file(d / "settings.json", kSettings, 0600);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::string text = read_file(d / "settings.json");
    CHECK(text.find("\n    \"model\"") != std::string::npos);  // still four-space indented
    ojson s = ojson::parse(text);
    ojson original = ojson::parse(kSettings);
    std::vector<std::string> keys;
    for (auto it = s.begin(); it != s.end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string>{"model", "permissions", "hooks", "env"});
    CHECK(s["permissions"] == original["permissions"]);
    CHECK(s["hooks"]["PostToolUse"] == original["hooks"]["PostToolUse"]);
    const ojson& pre = s["hooks"]["PreToolUse"];
    REQUIRE(pre.size() == 2);
    CHECK(pre[0] == original["hooks"]["PreToolUse"][0]);
    CHECK(pre[1]["matcher"] == "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob");
    REQUIRE(pre[1]["hooks"].size() == 1);
    CHECK(pre[1]["hooks"][0]["type"] == "command");
    CHECK(pre[1]["hooks"][0]["command"] == toolcage_path() + " hook --agent claude");
    CHECK(pre[1]["hooks"][0]["timeout"] == 10);
    CHECK(file_mode(d / "settings.json") == 0600);
}

TEST_CASE("a second install claude changes no byte; uninstall restores the original bytes",
          "[install][claude]") {
    TempDir d;
    write_file(d / "settings.json", kSettings);
    REQUIRE(install(d).code == 0);
    auto installed = snapshot(d.path(), true);
    Run again = install(d);
    CHECK(again.code == 0);
    CHECK(again.out.find("nothing to change") != std::string::npos);
    CHECK(snapshot(d.path(), true) == installed);
    Run u = uninstall(d);
    INFO(u.out << u.err);
    REQUIRE(u.code == 0);
    CHECK(read_file(d / "settings.json") == kSettings);
    // The user's own file keeps the backups taken of it.
    CHECK(backups(d.path()).size() == 2);
    CHECK(uninstall(d).out.find("nothing to change") != std::string::npos);
}

TEST_CASE("install claude --policy puts the policy on the hook's command line",
          "[install][claude]") {
    TempDir d;
    write_file(d / "settings.json", "{}\n");
    REQUIRE(install(d, {"--policy", "strict"}).code == 0);
    REQUIRE(install(d, {"--policy", "forge"}).code == 0);  // replaces, does not add a second
    ojson pre = ojson::parse(read_file(d / "settings.json"))["hooks"]["PreToolUse"];
    REQUIRE(pre.size() == 1);
    CHECK(pre[0]["hooks"][0]["command"] == toolcage_path() + " hook --agent claude --policy forge");
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "settings.json") == "{}\n");
}

TEST_CASE("install claude uses ~/.claude/settings.json and creates it; uninstall removes it",
          "[install][claude]") {
    TempDir home;
    std::filesystem::create_directories(home / ".claude");
    Run r = run_toolcage({"install", "claude"}, home.str());
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(ojson::parse(read_file(home / ".claude/settings.json"))["hooks"]["PreToolUse"].size() ==
          1);
    REQUIRE(run_toolcage({"uninstall", "claude"}, home.str()).code == 0);
    CHECK(snapshot(home.path()).empty());
    // The file was toolcage's alone: no backup of it is left either.
    CHECK(backups(home / ".claude").empty());
}

TEST_CASE("install claude refuses bad input and changes nothing", "[install][claude]") {
    SECTION("settings.json that is not JSON") {
        TempDir d;
        write_file(d / "settings.json", "{\n  \"model\": \"opus\",\n}\n");
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("settings.json: not valid JSON at line 3") != std::string::npos);
        CHECK(read_file(d / "settings.json") == "{\n  \"model\": \"opus\",\n}\n");
        CHECK(backups(d.path()).empty());
        check_lines_to_merge(r);
    }
    SECTION("hooks that is not an object") {
        TempDir d;
        write_file(d / "settings.json", "{\"hooks\": []}");
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("/hooks is array, expected an object") != std::string::npos);
        check_lines_to_merge(r);
    }
    SECTION("a read-only settings.json") {
        TempDir d;
        write_file(d / "settings.json", kSettings, 0444);
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("read-only (mode 0444)") != std::string::npos);
        CHECK(read_file(d / "settings.json") == kSettings);
        check_lines_to_merge(r);
    }
    SECTION("no ~/.claude directory") {
        TempDir home;
        Run r = run_toolcage({"install", "claude"}, home.str());
        CHECK(r.code == 2);
        CHECK(r.err.find(".claude: no such directory") != std::string::npos);
        CHECK(snapshot(home.path()).empty());
    }
    SECTION("an unknown policy") {
        TempDir d;
        write_file(d / "settings.json", kSettings);
        Run r = install(d, {"--policy", "../etc/passwd"});
        CHECK(r.code == 2);
        CHECK(r.err.find("not a policy name") != std::string::npos);
        CHECK(read_file(d / "settings.json") == kSettings);
    }
}

TEST_CASE("install claude makes a failing hook block the call, and says whether this Claude Code honours it",
          "[install][claude]") {
    TempDir d;
    write_file(d / "settings.json", "{}\n");
    Run r = install(d, {"--claude-version", "2.1.332"});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    ojson hook = ojson::parse(read_file(d / "settings.json"))["hooks"]["PreToolUse"][0]["hooks"][0];
    CHECK(hook["onFailure"] == "block");
    CHECK(r.out.find("Claude Code 2.1.332 (as given by --claude-version): a hook that cannot start, hangs past "
                     "its timeout or crashes blocks the call") != std::string::npos);
    // An older one: said plainly, with what to do.
    Run old = install(d, {"--claude-version", "2.1.197"});
    CHECK(old.out.find("Claude Code 2.1.197") != std::string::npos);
    CHECK(old.out.find("ignores onFailure") != std::string::npos);
    CHECK(old.out.find("lets the call run as sent") != std::string::npos);
    CHECK(old.out.find("upgrade Claude Code") != std::string::npos);
}

TEST_CASE("install claude reads the version of the Claude Code on PATH from its package", "[install][claude]") {
    TempDir d;
    write_file(d / "settings.json", "{}\n");
    // npm's layout: bin/claude links into the package, whose package.json holds the version.
    std::string pkg = (d / "npm/node_modules/@anthropic-ai/claude-code").string();
    write_file(pkg + "/package.json", R"({"name": "@anthropic-ai/claude-code", "version": "2.1.301"})");
    write_file(pkg + "/bin/claude.exe", "#!/bin/sh\necho 9.9.9\n", 0755);
    std::filesystem::create_directories(d / "bin");
    REQUIRE(::symlink((pkg + "/bin/claude.exe").c_str(), (d / "bin/claude").c_str()) == 0);
    Run on_path = run_toolcage({"install", "claude", "--dry-run", "--settings", (d / "settings.json").string()},
                               d.str(), {"PATH=" + (d / "bin").string() + ":/usr/bin:/bin"});
    INFO(on_path.out << on_path.err);
    CHECK(on_path.out.find("Claude Code 2.1.301 (package.json of " + (d / "bin/claude").string() + ")") !=
          std::string::npos);
    // Without a package, `claude --version` answers.
    write_file(pkg + "/package.json", R"({"name": "something-else", "version": "1.0.0"})");
    Run asked = run_toolcage({"install", "claude", "--dry-run", "--settings", (d / "settings.json").string()},
                             d.str(), {"PATH=" + (d / "bin").string() + ":/usr/bin:/bin"});
    CHECK(asked.out.find("Claude Code 9.9.9") != std::string::npos);
    // None on PATH: unknown, and said so.
    Run none = run_toolcage({"install", "claude", "--dry-run", "--settings", (d / "settings.json").string()},
                            d.str(), {"PATH=/nonexistent"});
    CHECK(none.out.find("Claude Code's version is unknown (no `claude` on PATH") != std::string::npos);
}

TEST_CASE("doctor says whether a dead or slow Claude Code hook blocks the call", "[install][claude][doctor]") {
    TempDir d;
    std::string pkg = (d / "npm/node_modules/@anthropic-ai/claude-code").string();
    write_file(pkg + "/package.json", R"({"name": "@anthropic-ai/claude-code", "version": "2.1.332"})");
    write_file(pkg + "/bin/claude.exe", "#!/bin/sh\nexit 1\n", 0755);
    std::filesystem::create_directories(d / "bin");
    REQUIRE(::symlink((pkg + "/bin/claude.exe").c_str(), (d / "bin/claude").c_str()) == 0);
    std::filesystem::create_directories(d / "proj/.git");
    const std::string settings = (d / "proj/.claude/settings.json").string();
    write_file(settings, "{}\n");
    REQUIRE(run_toolcage({"install", "claude", "--settings", settings}, d.str()).code == 0);
    const std::vector<std::string> env = {"PATH=" + (d / "bin").string() + ":/usr/bin:/bin"};
    auto agents = [&] {
        Run r = run_toolcage({"doctor", "--json", "--workdir", (d / "proj").string()}, d.str(), env);
        INFO(r.out << r.err);
        ojson doc = ojson::parse(r.out, nullptr, false);
        REQUIRE(doc.is_object());
        ojson mine = ojson::array();
        for (const auto& a : doc["agents"])
            if (a["where"] == settings) mine.push_back(a);
        return mine;
    };
    ojson a = agents();
    REQUIRE(a.size() == 1);
    CHECK(a[0]["agent"] == "claude");
    CHECK(a[0]["blocks_when_hook_fails"] == true);
    CHECK(a[0]["detail"].get<std::string>().find("Claude Code 2.1.332") != std::string::npos);
    // The text report says the same in one line.
    Run text = run_toolcage({"doctor", "--workdir", (d / "proj").string()}, d.str(), env);
    CHECK(text.out.find("agent claude (" + settings + "): a dead or slow hook blocks the call") != std::string::npos);
    // An entry without onFailure (an older install) does not block: said, with the fix.
    ojson s = ojson::parse(read_file(settings));
    s["hooks"]["PreToolUse"][0]["hooks"][0].erase("onFailure");
    write_file(settings, s.dump(2));
    a = agents();
    REQUIRE(a.size() == 1);
    CHECK(a[0]["blocks_when_hook_fails"] == false);
    CHECK(a[0]["detail"].get<std::string>().find("run `toolcage install claude` again") != std::string::npos);
    // onFailure in an older Claude Code: does not block either.
    REQUIRE(run_toolcage({"install", "claude", "--settings", settings}, d.str()).code == 0);
    write_file(pkg + "/package.json", R"({"name": "@anthropic-ai/claude-code", "version": "2.1.200"})");
    a = agents();
    REQUIRE(a.size() == 1);
    CHECK(a[0]["blocks_when_hook_fails"] == false);
    CHECK(a[0]["detail"].get<std::string>().find("ignores onFailure") != std::string::npos);
}
