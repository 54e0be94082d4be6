// `toolcage install hermes` / `uninstall hermes`, run as a user would against profile
// directories in /tmp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/install/harness.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

const std::string kConfig =
    "# my settings\nmodel:\n  default: some-model\nterminal:\n  backend: local\n";

std::string command() {
    return toolcage_path() + " hook --agent hermes";
}

Run install(const TempDir& d, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"install", "hermes", "--hermes-home", d.str()};
    args.insert(args.end(), more.begin(), more.end());
    return run_toolcage(args, d.str());
}

Run uninstall(const TempDir& d) {
    return run_toolcage({"uninstall", "hermes", "--hermes-home", d.str()}, d.str());
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t nl = text.find('\n', at);
        out.push_back(text.substr(at, nl - at));
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return out;
}

json approvals(const TempDir& d) {
    return json::parse(read_file(d / "shell-hooks-allowlist.json"))["approvals"];
}

}  // namespace

TEST_CASE("install hermes appends a pre_tool_call hook that Hermes parses as intended",
          "[install][hermes]") {
    TempDir d;
    write_file(d / "config.yaml", kConfig);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::string text = read_file(d / "config.yaml");
    CHECK(text.starts_with(kConfig));
    CHECK(text.find("command: \"" + command() + "\"") != std::string::npos);

    std::string parsed = yaml_as_json(d / "config.yaml");
    if (parsed.empty()) {
        WARN("PyYAML not installed: the YAML is not parsed back");
    } else {
        json cfg = json::parse(parsed);
        json entry = cfg["hooks"]["pre_tool_call"][0];
        CHECK(entry["matcher"] == "terminal|execute_code|write_file|patch");
        CHECK(entry["command"] == command());
        CHECK(entry["timeout"] == 10);
        CHECK(entry["fail_closed"] == true);
        CHECK(cfg["model"]["default"] == "some-model");
    }

    json a = approvals(d);
    REQUIRE(a.size() == 1);
    CHECK(a[0]["event"] == "pre_tool_call");
    CHECK(a[0]["command"] == command());
    CHECK(a[0]["approved_at"].get<std::string>().ends_with("Z"));
    CHECK(file_mode(d / "shell-hooks-allowlist.json") == 0600);

    auto b = backups(d.path());
    REQUIRE(b.size() == 1);
    CHECK(read_file(b[0]) == kConfig);
}

TEST_CASE("a second install hermes changes no byte", "[install][hermes]") {
    TempDir d;
    write_file(d / "config.yaml", kConfig);
    REQUIRE(install(d).code == 0);
    auto before = snapshot(d.path(), true);
    Run r = install(d);
    CHECK(r.code == 0);
    CHECK(r.out.find("nothing to change") != std::string::npos);
    CHECK(snapshot(d.path(), true) == before);
}

TEST_CASE("uninstall hermes brings back the exact original files", "[install][hermes]") {
    const char* originals[] = {
        "model: x\n",
        "model: x",                                       // no newline at the end
        "model: x\r\nterminal:\r\n  backend: local\r\n",  // CRLF
        "",
    };
    for (const char* original : originals) {
        TempDir d;
        write_file(d / "config.yaml", original, 0640);
        write_file(d / "SOUL.md", "You are a careful agent.\n");
        auto before = snapshot(d.path());
        Run r = install(d, {"--policy", "forge"});
        INFO(original << r.out << r.err);
        REQUIRE(r.code == 0);
        CHECK(snapshot(d.path()) != before);
        CHECK(file_mode(d / "config.yaml") == 0640);
        Run u = uninstall(d);
        INFO(u.out << u.err);
        REQUIRE(u.code == 0);
        CHECK(snapshot(d.path()) == before);
    }
}

TEST_CASE("install hermes into a profile without config.yaml creates it; uninstall removes it",
          "[install][hermes]") {
    TempDir d;
    REQUIRE(install(d).code == 0);
    CHECK(file_exists(d / "config.yaml"));
    // A second install with another policy rewrites toolcage's own files, backing them up.
    REQUIRE(install(d, {"--policy", "strict"}).code == 0);
    REQUIRE(uninstall(d).code == 0);
    CHECK(snapshot(d.path()).empty());
    // Every file was toolcage's alone: none of their backups is left either.
    CHECK(backups(d.path()).empty());
}

TEST_CASE("install hermes merges its entry into the user's hooks: line by line; uninstall takes "
          "out exactly that",
          "[install][hermes]") {
    struct Shape {
        const char* name;
        std::string config;
        std::vector<std::string> their_pre_tool_call;  // the user's own entries, before ours
    };
    const std::vector<Shape> shapes = {
        {"other events", "model: x\nhooks:\n  post_tool_call:\n    - command: ~/fmt.sh\n# mine\nother: 1\n", {}},
        {"the same event with entries of its own",
         "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: ~/audit.sh  # audit\n"
         "  post_tool_call:\n  - command: x\nterminal:\n  backend: local\n",
         {"~/audit.sh"}},
        {"a list at the key's own column", "hooks:\n    pre_tool_call:\n    - command: \"a\"\n    - command: 'b'\n",
         {"a", "b"}},
        {"an empty event list", "hooks:\n  on_session_start:\n    - command: hi\n  pre_tool_call: []  # none yet\n", {}},
        {"an empty event", "hooks:\n  pre_tool_call:\n  post_tool_call: [{command: y}]\n", {}},
    };
    for (const auto& shape : shapes) {
        TempDir d;
        write_file(d / "config.yaml", shape.config);
        Run r = install(d);
        INFO(shape.name << "\n" << r.out << r.err << read_file(d / "config.yaml"));
        REQUIRE(r.code == 0);
        const std::string text = read_file(d / "config.yaml");
        // Every line of the user's is still there, in its order.
        std::size_t at = 0;
        for (const auto& line : split_lines(shape.config)) {
            at = text.find(line, at);
            CHECK(at != std::string::npos);
        }
        CHECK(approvals(d).size() == 1);
        std::string parsed = yaml_as_json(d / "config.yaml");
        if (parsed.empty()) {
            WARN("PyYAML not installed: the YAML is not parsed back");
        } else {
            json cfg = json::parse(parsed);
            json pre = cfg["hooks"]["pre_tool_call"];
            REQUIRE(pre.size() == shape.their_pre_tool_call.size() + 1);
            for (std::size_t i = 0; i < shape.their_pre_tool_call.size(); ++i)
                CHECK(pre[i]["command"] == shape.their_pre_tool_call[i]);
            CHECK(pre.back()["command"] == command());
            CHECK(pre.back()["matcher"] == "terminal|execute_code|write_file|patch");
            CHECK(pre.back()["fail_closed"] == true);
            TempDir o;
            write_file(o / "original.yaml", shape.config);
            json original = json::parse(yaml_as_json(o / "original.yaml"));
            for (auto& [key, value] : original.items()) {
                if (key == "hooks") {
                    for (auto& [event, entries] : value.items())
                        if (event != "pre_tool_call") CHECK(cfg["hooks"][event] == entries);
                } else {
                    CHECK(cfg[key] == value);
                }
            }
        }
        // A second install changes nothing; uninstall brings back the user's bytes.
        CHECK(install(d).code == 0);
        CHECK(read_file(d / "config.yaml") == text);
        Run u = uninstall(d);
        INFO(u.out << u.err);
        REQUIRE(u.code == 0);
        CHECK(read_file(d / "config.yaml") == shape.config);
        CHECK(!file_exists(d / "shell-hooks-allowlist.json"));
    }
}

TEST_CASE("a hooks: install hermes cannot merge line by line: the lines are printed, exit 2; "
          "merged by hand, uninstall takes them out",
          "[install][hermes]") {
    TempDir d;
    const std::string config = "model: x\nhooks: {post_tool_call: [{command: ~/fmt.sh}]}\n";
    write_file(d / "config.yaml", config);
    Run r = install(d);
    CHECK(r.code == 2);
    CHECK(r.err.find("its `hooks:` (line 2) cannot take toolcage's entry line by line") != std::string::npos);
    CHECK(r.err.find("command: \"" + command() + "\"") != std::string::npos);
    CHECK(read_file(d / "config.yaml") == config);
    CHECK(!file_exists(d / "shell-hooks-allowlist.json"));
    CHECK(backups(d.path()).empty());
    // The user writes `hooks:` in block style and merges the printed hook lines into it.
    std::string printed = r.err.substr(r.err.find("    hooks:\n"));
    std::string entry;
    for (const auto& line : split_lines(printed))
        if (line.starts_with("      ")) entry += line.substr(4) + "\n";
    REQUIRE(entry.find("  pre_tool_call:\n    - matcher:") == 0);
    const std::string merged = "model: x\nhooks:\n  post_tool_call:\n    - command: ~/fmt.sh\n" + entry;
    write_file(d / "config.yaml", merged);
    Run again = install(d);
    INFO(again.out << again.err);
    REQUIRE(again.code == 0);
    CHECK(approvals(d).size() == 1);
    Run u = uninstall(d);
    INFO(u.out << u.err);
    REQUIRE(u.code == 0);
    CHECK(read_file(d / "config.yaml") == "model: x\nhooks:\n  post_tool_call:\n    - command: ~/fmt.sh\n");
    CHECK(!file_exists(d / "shell-hooks-allowlist.json"));
    // Merged into the user's own pre_tool_call list, with the plugin's lines too: the user's
    // entry and settings stay, what was printed goes.
    const std::string theirs = "hooks:\n  pre_tool_call:\n    - command: ~/audit.sh\n";
    std::string item = entry.substr(entry.find("    - matcher:"));
    write_file(d / "config.yaml", "plugins:\n  enabled:\n    - toolcage\n" + theirs + item);
    Run in_list = install(d);
    INFO(in_list.out << in_list.err);
    REQUIRE(in_list.code == 0);
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == theirs);
    write_file(d / "config.yaml", "plugins:\n  enabled:\n    - memory\n    - toolcage\n  dir: x\n" + theirs + item);
    REQUIRE(install(d).code == 0);
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == "plugins:\n  enabled:\n    - memory\n  dir: x\n" + theirs);
    // Merged as the only hook: `hooks:` is left as Hermes writes it empty.
    write_file(d / "config.yaml", "model: x\nhooks:\n" + entry);
    REQUIRE(install(d).code == 0);
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == "model: x\nhooks: {}\n");
}

TEST_CASE("hooks: toolcage cannot read line by line is left alone, with the reason", "[install][hermes]") {
    for (const std::string config :
         {"hooks:\n  pre_tool_call: [{command: a}]\n", "hooks:\n  pre_tool_call:\n    - command: |\n        a\n",
          "hooks:\n  - pre_tool_call\n", "hooks:\n  pre_tool_call:\n    matcher: x\n",
          "hooks:\n  pre_tool_call: &h\n    - command: a\n", "hooks:\n  post_tool_call: [\n    x]\n"}) {
        TempDir d;
        write_file(d / "config.yaml", config);
        Run r = install(d);
        INFO(config << r.err);
        CHECK(r.code == 2);
        CHECK(r.err.find("cannot take toolcage's entry line by line (line ") != std::string::npos);
        CHECK(read_file(d / "config.yaml") == config);
        CHECK(backups(d.path()).empty());
    }
}

TEST_CASE("after the lines are merged by hand, install hermes records only the approval",
          "[install][hermes]") {
    TempDir d;
    const std::string config =
        "plugins:\n  enabled:\n    - toolcage\n"
        "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: \"" + command() +
        "\"\n      fail_closed: true\n";
    write_file(d / "config.yaml", config);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(read_file(d / "config.yaml") == config);
    CHECK(approvals(d).size() == 1);
    // Taking it out again is the user's job: it is not the entry toolcage printed.
    Run u = uninstall(d);
    CHECK(u.code == 2);
    CHECK(u.err.find("line 7 runs toolcage's hook, but is not the entry `toolcage install hermes` printed "
                     "(line 6: `matcher: terminal`)") != std::string::npos);
    CHECK(read_file(d / "config.yaml") == config);
    CHECK(approvals(d).size() == 1);
}

TEST_CASE("the empty hooks: {} Hermes writes by default is filled, and put back on uninstall",
          "[install][hermes]") {
    TempDir d;
    const std::string config = "model: x\nhooks: {}\nhooks_auto_accept: false\n";
    write_file(d / "config.yaml", config);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::string parsed = yaml_as_json(d / "config.yaml");
    if (!parsed.empty()) {
        json cfg = json::parse(parsed);
        CHECK(cfg["hooks"]["pre_tool_call"][0]["command"] == command());
        CHECK(cfg["hooks_auto_accept"] == false);
    }
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == config);
}

TEST_CASE("install hermes after toolcage moved rewrites its own block and swaps the approval",
          "[install][hermes]") {
    TempDir d;
    const std::string old_cmd = "/opt/old/bin/toolcage hook --agent hermes";
    write_file(
        d / "config.yaml",
        "model: x\n"
        "# >>> toolcage hook: added by `toolcage install hermes`; `toolcage uninstall hermes` "
        "removes it\n"
        "hooks:\n  pre_tool_call:\n    - matcher: \"terminal|execute_code|write_file|patch\"\n"
        "      command: \"" +
            old_cmd +
            "\"\n      timeout: 10\n      fail_closed: true\n"
            "# <<< toolcage hook\n");
    write_file(d / "shell-hooks-allowlist.json",
               "{\"approvals\": [{\"event\": \"pre_tool_call\", \"command\": \"" + old_cmd +
                   "\"},"
                   " {\"event\": \"pre_tool_call\", \"command\": \"~/mine.sh\"}]}\n",
               0600);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::string text = read_file(d / "config.yaml");
    CHECK(text.find(old_cmd) == std::string::npos);
    CHECK(text.find(command()) != std::string::npos);
    json a = approvals(d);
    REQUIRE(a.size() == 2);
    CHECK(a[0]["command"] == "~/mine.sh");
    CHECK(a[1]["command"] == command());
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == "model: x\n");
    CHECK(approvals(d).size() == 1);
}

TEST_CASE("install hermes merges its approval into an existing allowlist; uninstall restores it",
          "[install][hermes]") {
    TempDir d;
    write_file(d / "config.yaml", kConfig);
    const std::string allowlist =
        "{\n  \"approvals\": [\n    {\n      \"approved_at\": \"2025-01-01T00:00:00Z\",\n      "
        "\"command\": "
        "\"~/fmt.sh\",\n      \"event\": \"post_tool_call\",\n      \"script_mtime_at_approval\": "
        "null\n    }\n  ]\n}";
    write_file(d / "shell-hooks-allowlist.json", allowlist, 0600);
    REQUIRE(install(d).code == 0);
    json a = approvals(d);
    REQUIRE(a.size() == 2);
    CHECK(a[0]["command"] == "~/fmt.sh");
    CHECK(a[1]["command"] == command());
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "shell-hooks-allowlist.json") == allowlist);
    CHECK(read_file(d / "config.yaml") == kConfig);
}

TEST_CASE("install hermes refuses bad input and changes nothing", "[install][hermes]") {
    SECTION("a profile directory that does not exist") {
        TempDir d;
        Run r = run_toolcage({"install", "hermes", "--profile", "nosuch"}, d.str());
        CHECK(r.code == 2);
        CHECK(r.err.find("/.hermes/profiles/nosuch: no such Hermes profile directory") !=
              std::string::npos);
        CHECK(r.err.find("hermes profile create nosuch") != std::string::npos);
        CHECK(snapshot(d.path()).empty());
    }
    SECTION("an allowlist that is not JSON") {
        TempDir d;
        write_file(d / "config.yaml", kConfig);
        write_file(d / "shell-hooks-allowlist.json", "{\"approvals\": [", 0600);
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("shell-hooks-allowlist.json: not valid JSON at line 1") !=
              std::string::npos);
        CHECK(read_file(d / "config.yaml") == kConfig);
        CHECK(backups(d.path()).empty());
    }
    SECTION("a read-only config.yaml") {
        TempDir d;
        write_file(d / "config.yaml", kConfig, 0444);
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("config.yaml is read-only (mode 0444)") != std::string::npos);
        CHECK(read_file(d / "config.yaml") == kConfig);
        CHECK(!file_exists(d / "shell-hooks-allowlist.json"));
    }
    SECTION("a read-only allowlist leaves config.yaml alone too") {
        TempDir d;
        write_file(d / "config.yaml", kConfig);
        write_file(d / "shell-hooks-allowlist.json", "{\"approvals\": []}\n", 0400);
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("shell-hooks-allowlist.json is read-only") != std::string::npos);
        CHECK(read_file(d / "config.yaml") == kConfig);
    }
    SECTION("YAML a line scan cannot vouch for") {
        TempDir d;
        write_file(d / "config.yaml", "{model: x}\n");
        Run r = install(d);
        CHECK(r.code == 2);
        CHECK(r.err.find("line 1: the top level is written in flow style") != std::string::npos);
        CHECK(read_file(d / "config.yaml") == "{model: x}\n");
    }
    SECTION("an unknown policy") {
        TempDir d;
        write_file(d / "config.yaml", kConfig);
        Run r = install(d, {"--policy", "nosuch"});
        CHECK(r.code == 2);
        CHECK(r.err.find("no such installed policy") != std::string::npos);
        CHECK(r.err.find("forge") != std::string::npos);
        CHECK(snapshot(d.path()) == std::map<std::string, std::string>{{"config.yaml", kConfig}});
    }
    SECTION("SOUL.md front matter that is never closed") {
        TempDir d;
        write_file(d / "config.yaml", kConfig);
        write_file(d / "SOUL.md", "---\ntitle: agent\nYou are careful.\n");
        Run r = install(d, {"--policy", "forge"});
        CHECK(r.code == 2);
        CHECK(r.err.find("SOUL.md: line 1: the YAML front matter opened here is never closed") !=
              std::string::npos);
        CHECK(read_file(d / "config.yaml") == kConfig);
    }
    SECTION("a SOUL.md that already names another policy") {
        TempDir d;
        write_file(d / "config.yaml", kConfig);
        write_file(d / "SOUL.md", "Careful.\n<!-- toolcage: strict -->\n");
        Run r = install(d, {"--policy", "forge"});
        CHECK(r.code == 2);
        CHECK(r.err.find("line 2: the comment already chooses policy \"strict\"") !=
              std::string::npos);
        CHECK(read_file(d / "SOUL.md") == "Careful.\n<!-- toolcage: strict -->\n");
    }
}

TEST_CASE("install hermes --policy sets the policy the hook then reads from SOUL.md",
          "[install][hermes]") {
    SECTION("a SOUL.md without front matter gets a comment on its first line") {
        TempDir d;
        write_file(d / "SOUL.md", "You are a careful agent.\n");
        REQUIRE(install(d, {"--policy", "forge"}).code == 0);
        CHECK(read_file(d / "SOUL.md").starts_with("<!-- toolcage: forge -->"));
        Run w = run_toolcage({"policy", "which", "--profile-dir", d.str()}, d.str());
        INFO(w.out << w.err);
        CHECK(w.out.find("policy: forge") != std::string::npos);
    }
    SECTION("front matter gets a toolcage: line; a new --policy replaces it") {
        TempDir d;
        const std::string soul = "---\nname: worker\n---\nYou build code.\n";
        write_file(d / "SOUL.md", soul);
        REQUIRE(install(d, {"--policy", "forge"}).code == 0);
        CHECK(read_file(d / "SOUL.md").starts_with("---\nname: worker\ntoolcage: forge"));
        REQUIRE(install(d, {"--policy", "strict"}).code == 0);
        Run w = run_toolcage({"policy", "which", "--profile-dir", d.str()}, d.str());
        INFO(w.out << w.err);
        CHECK(w.out.find("policy: strict") != std::string::npos);
        REQUIRE(uninstall(d).code == 0);
        CHECK(read_file(d / "SOUL.md") == soul);
    }
    SECTION("a profile without SOUL.md gets toolcage.json instead of a new identity file") {
        TempDir d;
        REQUIRE(install(d, {"--policy", "forge"}).code == 0);
        CHECK(!file_exists(d / "SOUL.md"));
        CHECK(json::parse(read_file(d / "toolcage.json"))["policy"] == "forge");
        REQUIRE(uninstall(d).code == 0);
        CHECK(snapshot(d.path()).empty());
    }
}

TEST_CASE("install hermes --profile NAME finds the profile under ~/.hermes/profiles",
          "[install][hermes]") {
    TempDir home;
    write_file(home / ".hermes/profiles/work/config.yaml", kConfig);
    Run r = run_toolcage({"install", "hermes", "--profile", "work"}, home.str());
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(read_file(home / ".hermes/profiles/work/config.yaml").size() > kConfig.size());
    CHECK(file_exists(home / ".hermes/profiles/work/shell-hooks-allowlist.json"));
    CHECK(!file_exists(home / ".hermes/config.yaml"));
}

TEST_CASE("install hermes --dry-run says what it would do and changes nothing",
          "[install][hermes]") {
    TempDir d;
    write_file(d / "config.yaml", kConfig);
    Run r = run_toolcage({"install", "hermes", "--hermes-home", d.str(), "--dry-run"}, d.str());
    CHECK(r.code == 0);
    CHECK(r.out.find("would") != std::string::npos);
    CHECK(snapshot(d.path(), true) == std::map<std::string, std::string>{{"config.yaml", kConfig}});
}
