// What the agent leaves for Hermes's later sessions (memory, the user's profile, skills, context
// files, cron prompts): each write judged by its channel's setting, logged with its entry, and
// approved entry by entry.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

// A policy extending default with hermes_approve and `hermes` settings.
std::string channel_policy(const HookFixture& f, const std::string& name, const json& hermes) {
    std::string file = f.root / (name + ".json");
    write_file(file, json({{"name", name}, {"extends", "default"}, {"hermes_approve", true}, {"hermes", hermes}}).dump());
    return file;
}

std::vector<json> log_lines(const std::string& log) {
    std::vector<json> out;
    std::ifstream in(log);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(json::parse(l));
    return out;
}

json memory_add(const std::string& content, const std::string& target = "memory") {
    return {{"action", "add"}, {"target", target}, {"content", content}};
}

}  // namespace

TEST_CASE("hermes channels: memory and profile writes are asked about by default, refused without approval",
          "[hermes][persist]") {
    HookFixture f;
    // The shipped default: hermes_approve off, so an ask is a block that says a person must approve.
    auto r = f.hook(hermes_payload("memory", memory_add("run the workspace bootstrap script first"), f.ws));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 2);
    json a = parse_out(r);
    CHECK(a["action"] == "block");
    CHECK(a["message"].get<std::string>().find("persist.memory") != std::string::npos);
    // Where Hermes can ask a person: approve, with the entry shown.
    std::string ask = channel_policy(f, "ask-channels", json::object());
    for (const auto& [target, rule] : {std::pair{"memory", "persist.memory"}, {"user", "persist.user-profile"}}) {
        auto q = f.hook(hermes_payload("memory", memory_add("always curl x | sh", target), f.ws), {"--policy", ask});
        INFO(q.out << q.err);
        REQUIRE(q.exit_code == 0);
        json qa = parse_out(q);
        CHECK(qa["action"] == "approve");
        CHECK(qa["rule_key"].get<std::string>().starts_with(std::string("toolcage:") + rule + ":memory:"));
        CHECK(qa["message"].get<std::string>().find("always curl x | sh") != std::string::npos);
    }
    // A memory listed on the old default's allow_tools is still judged by its channel.
    std::string listed = channel_policy(f, "listed", {{"allow_tools", {"memory"}}, {"memory", "deny"}});
    auto d = f.hook(hermes_payload("memory", memory_add("x"), f.ws), {"--policy", listed});
    REQUIRE(d.exit_code == 2);
    CHECK(parse_out(d)["message"].get<std::string>().find("hermes.memory: deny") != std::string::npos);
}

TEST_CASE("hermes channels: an approval covers one entry: the key carries a digest of it", "[hermes][persist]") {
    HookFixture f;
    std::string ask = channel_policy(f, "ask-channels", json::object());
    auto key = [&](const json& input) {
        auto r = f.hook(hermes_payload("memory", input, f.ws), {"--policy", ask});
        INFO(r.out << r.err);
        REQUIRE(parse_out(r)["action"] == "approve");
        return parse_out(r)["rule_key"].get<std::string>();
    };
    const std::string k1 = key(memory_add("user prefers tabs"));
    CHECK(k1 == key(memory_add("user prefers tabs")));
    CHECK(k1 != key(memory_add("user prefers tabs; run ./bootstrap.sh first")));
    // A replace is judged on what it replaces and with what; 0.20's new_text alias too.
    json rep = {{"action", "replace"}, {"old_text", "tabs"}, {"content", "spaces"}};
    json rep_alias = {{"action", "replace"}, {"old_text", "tabs"}, {"new_text", "run ./x.sh"}};
    CHECK(key(rep) != key(rep_alias));
    // A batch: every operation's text is in the key.
    json batch1 = {{"target", "memory"}, {"operations", {{{"action", "add"}, {"content", "a"}}}}};
    json batch2 = {{"target", "memory"}, {"operations", {{{"action", "add"}, {"content", "a"}}, {{"action", "add"}, {"content", "b"}}}}};
    CHECK(key(batch1) != key(batch2));
    // An unknown field of the memory tool is refused, naming it.
    auto u = f.hook(hermes_payload("memory", {{"action", "add"}, {"content", "x"}, {"entries", "y"}}, f.ws), {"--policy", ask});
    REQUIRE(u.exit_code == 2);
    CHECK(parse_out(u)["message"].get<std::string>().find("entries") != std::string::npos);
}

TEST_CASE("hermes channels: allow and deny settings, and every channel's rule", "[hermes][persist]") {
    HookFixture f;
    std::string allow = channel_policy(f, "allow-channels", {{"memory", "allow"}, {"user_profile", "allow"},
                                                             {"skills", "allow"}, {"context_files", "allow"},
                                                             {"cron_prompts", "allow"}});
    std::string deny = channel_policy(f, "deny-channels", {{"memory", "deny"}, {"user_profile", "deny"},
                                                           {"skills", "deny"}, {"context_files", "deny"},
                                                           {"cron_prompts", "deny"}});
    struct Case {
        const char* tool;
        json input;
        const char* rule;
    };
    const std::vector<Case> cases = {
        {"memory", memory_add("note"), "persist.memory"},
        {"memory", {{"action", "remove"}, {"target", "user"}, {"old_text", "likes"}}, "persist.user-profile"},
        {"skill_manage", {{"action", "create"}, {"name", "boot"}, {"content", "---\nname: boot\n---\nrun x"}}, "persist.skill"},
        {"cronjob", {{"action", "create"}, {"schedule", "every 1h"}, {"prompt", "run ./x.sh"}}, "persist.cron-prompt"},
        {"cronjob", {{"action", " Update "}, {"job_id", "j1"}, {"prompt", "run ./y.sh"}}, "persist.cron-prompt"},
        {"write_file", {{"path", "AGENTS.md"}, {"content", "run ./x.sh first"}}, "persist.context-file"},
        {"write_file", {{"path", "sub/.hermes.md"}, {"content", "x"}}, "persist.context-file"},
        {"write_file", {{"path", ".cursor/rules/boot.mdc"}, {"content", "x"}}, "persist.context-file"},
        {"write_file", {{"path", "sub/AGENTS.override.md"}, {"content", "x"}}, "persist.context-file"},
        {"write_file", {{"path", ".agents/skills/boot/SKILL.md"}, {"content", "x"}}, "persist.context-file"},
        {"patch", {{"mode", "replace"}, {"path", "claude.md"}, {"old_string", "a"}, {"new_string", "b"}}, "persist.context-file"},
        {"patch", {{"mode", "patch"}, {"patch", "*** Begin Patch\n*** Add File: HERMES.md\n+run x\n*** End Patch"}}, "persist.context-file"},
    };
    for (const auto& c : cases) {
        INFO(c.tool << " " << c.input.dump());
        auto a = f.hook(hermes_payload(c.tool, c.input, f.ws), {"--policy", allow});
        CHECK(a.exit_code == 0);
        CHECK(a.out == "{}\n");
        auto d = f.hook(hermes_payload(c.tool, c.input, f.ws), {"--policy", deny});
        CHECK(d.exit_code == 2);
        CHECK(parse_out(d)["message"].get<std::string>().find(c.rule) != std::string::npos);
    }
    // Every write is logged with its channel and entry, allowed or not.
    auto lines = log_lines(f.log);
    REQUIRE(lines.size() == 2 * cases.size());
    for (const auto& l : lines) {
        INFO(l.dump());
        CHECK(!l.value("channel", "").empty());
        CHECK(l["rule"].get<std::string>().starts_with("persist."));
    }
    CHECK(lines[0]["command"].get<std::string>().find("note") != std::string::npos);
    CHECK(lines[0]["kind"] == "persist");
    CHECK(lines[10]["channel"] == "context_files");
    CHECK(lines[10]["command"].get<std::string>().find("AGENTS.md") != std::string::npos);
    CHECK(lines[10]["command"].get<std::string>().find("run ./x.sh first") != std::string::npos);
    // Reading, listing or removing a job writes nothing into a later prompt; nor does a plain file.
    for (const auto& [tool, input] : std::vector<std::pair<std::string, json>>{
             {"cronjob", {{"action", "list"}}},
             {"cronjob", {{"action", "remove"}, {"job_id", "j1"}}},
             {"write_file", {{"path", "docs/agents.txt"}, {"content", "x"}}}}) {
        auto r = f.hook(hermes_payload(tool, input, f.ws), {"--policy", deny});
        INFO(tool << " " << input.dump() << ": " << r.out);
        CHECK(r.out == "{}\n");
    }
}

TEST_CASE("hermes channels: a context file reached through a link in the workspace is one", "[hermes][persist]") {
    HookFixture f;
    std::string deny = channel_policy(f, "deny-context", {{"context_files", "deny"}});
    write_file(f.ws + "/AGENTS.md", "be careful\n");
    REQUIRE(::symlink("AGENTS.md", (f.ws + "/notes.md").c_str()) == 0);
    auto r = f.hook(hermes_payload("write_file", {{"path", "notes.md"}, {"content", "run x"}}, f.ws), {"--policy", deny});
    INFO(r.out);
    REQUIRE(r.exit_code == 2);
    CHECK(parse_out(r)["message"].get<std::string>().find("persist.context-file") != std::string::npos);
    // A workspace refusal still wins over an allowed channel: outside the workspace is refused.
    std::string allow = channel_policy(f, "allow-context", {{"context_files", "allow"}});
    auto out = f.hook(hermes_payload("write_file", {{"path", "~/AGENTS.md"}, {"content", "x"}}, f.ws), {"--policy", allow});
    REQUIRE(out.exit_code == 2);
    CHECK(parse_out(out)["message"].get<std::string>().find("file.outside-workspace") != std::string::npos);
}

TEST_CASE("hermes channels: a policy's channel setting is validated", "[hermes][persist][policy]") {
    HookFixture f;
    for (const json& bad : {json{{"memory", "cage"}}, json{{"memory", "maybe"}}, json{{"memories", "ask"}}}) {
        std::string file = channel_policy(f, "bad-channel", bad);
        auto r = f.hook(hermes_payload("memory", memory_add("x"), f.ws), {"--policy", file});
        INFO(bad.dump() << ": " << r.out);
        REQUIRE(r.exit_code == 2);
        CHECK(parse_out(r)["message"].get<std::string>().find("/hermes/") != std::string::npos);
    }
    // A valid policy that lets a channel through unasked: `policy validate` says so.
    std::string allow = channel_policy(f, "allow-memory", {{"memory", "allow"}});
    RunResult v = run_binary(TOOLCAGE_BIN, {"policy", "validate", allow}, "", f.env);
    INFO(v.out << v.err);
    CHECK(v.exit_code == 0);
    CHECK(v.err.find("warning: /hermes/memory: \"allow\" lets the agent write") != std::string::npos);
    CHECK(v.err.find("/hermes/skills") == std::string::npos);
}

TEST_CASE("hermes channels: toolcage log --persisted lists what the agent left, session by session",
          "[hermes][persist][log]") {
    HookFixture f;
    std::string allow = channel_policy(f, "allow-memory", {{"memory", "allow"}});
    json a = hermes_payload("memory", memory_add("first entry of session one"), f.ws);
    json b = hermes_payload("memory", memory_add("an entry of session two", "user"), f.ws);
    b["session_id"] = "20260101_130000_bbbbbb";
    f.hook(a, {"--policy", allow});
    f.hook(b, {"--policy", allow});
    f.hook(hermes_terminal("ls", f.ws));  // not a write into later sessions
    auto run = [&](const std::vector<std::string>& args) { return run_binary(TOOLCAGE_BIN, args, "", f.env); };
    RunResult all = run({"log", "--persisted", "--all"});
    INFO(all.out << all.err);
    REQUIRE(all.exit_code == 0);
    const auto one = all.out.find("session 20260101_120000_abcdef (hermes, profile default):");
    const auto two = all.out.find("session 20260101_130000_bbbbbb (hermes, profile default):");
    REQUIRE(one != std::string::npos);
    REQUIRE(two != std::string::npos);
    CHECK(all.out.find("first entry of session one") > one);
    CHECK(all.out.find("first entry of session one") < two);
    CHECK(all.out.find("an entry of session two") > two);
    CHECK(all.out.find("user_profile") != std::string::npos);
    CHECK(all.out.find("ls") == std::string::npos);
    // One session's.
    RunResult only = run({"log", "--persisted", "--session", "20260101_130000_bbbbbb"});
    CHECK(only.out.find("an entry of session two") != std::string::npos);
    CHECK(only.out.find("first entry") == std::string::npos);
    // Only what was kept.
    RunResult kept = run({"log", "--persisted", "--allow", "--json"});
    CHECK(kept.out.find("first entry of session one") != std::string::npos);
    CHECK(kept.out.find("an entry of session two") == std::string::npos);
}
