// `toolcage hook --agent openclaw`: what plugins/openclaw/index.js sends and reads back.
#include <catch2/catch.hpp>

#include "fixture.h"
#include "hook/shell/ast.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

json answer(const RunResult& r, int exit_code) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == exit_code);
    json out = parse_out(r);
    REQUIRE(out.is_object());
    REQUIRE(out["decision"].is_string());
    REQUIRE(out["rule"].is_string());
    CHECK(out["reason"].get<std::string>().starts_with("toolcage: "));
    return out;
}

}  // namespace

TEST_CASE("openclaw: exec is classified in its workdir", "[openclaw]") {
    HookFixture f;
    std::vector<std::string> a = {"--agent", "openclaw"};
    CHECK(answer(f.hook(openclaw_payload("exec", {{"command", "ls"}}, f.ws), a), 0)["decision"] == "allow");
    json cage = answer(f.hook(openclaw_payload("exec", {{"command", "make test"}, {"workdir", "sub"}}, f.ws), a), 0);
    CHECK(cage["decision"] == "cage");
    std::string rw = cage["command"];
    auto p = toolcage::shell::parse(rw);
    REQUIRE(p.ok);
    const auto& words = p.script.items[0].and_or.pipelines[0].commands[0].words;
    CHECK(words[4].literal() == "--step-id");
    CHECK(words[7].literal() == f.ws + "/sub");
    CHECK(words.back().literal() == "make test");
    CHECK(answer(f.hook(openclaw_payload("exec", {{"command", "rm -rf /"}}, f.ws), a), 2)["decision"] == "deny");
}

TEST_CASE("openclaw: the workspace's SOUL.md chooses the policy and is protected", "[openclaw][soul]") {
    HookFixture f;
    write_file(f.ws + "/SOUL.md", "---\ntoolcage: strict\n---\n");
    CHECK(answer(f.hook(openclaw_payload("exec", {{"command", "make"}}, f.ws)), 2)["decision"] == "deny");
    json w = answer(f.hook(openclaw_payload("write", {{"path", "SOUL.md"}, {"content", "x"}}, f.ws)), 2);
    CHECK(w["rule"] == "self.protected");
    // strict refuses every change, the file tools' included.
    json e = answer(f.hook(openclaw_payload("edit", {{"file_path", "notes.md"}, {"oldText", "a"}, {"newText", "b"}}, f.ws)), 2);
    CHECK(e["rule"] == "file.policy-refuses-writes");
}

TEST_CASE("openclaw: apply_patch is judged by every file it names", "[openclaw]") {
    HookFixture f;
    auto patch = [&](const std::string& body) {
        return f.hook(openclaw_payload("apply_patch", {{"input", "*** Begin Patch\n" + body + "*** End Patch\n"}}, f.ws));
    };
    CHECK(answer(patch("*** Add File: a.txt\n+x\n"), 0)["decision"] == "allow");
    CHECK(answer(patch("*** Update File: a.txt\n*** Move to: ../../../../../../../../../../../../../../../../etc/x\n"), 2)["decision"] == "deny");
    json none = answer(f.hook(openclaw_payload("apply_patch", {{"input", "nothing"}}, f.ws)), 2);
    CHECK(none["rule"] == "hook.error");
}

TEST_CASE("openclaw: a missing field is a refusal", "[openclaw][errors]") {
    HookFixture f;
    json p = openclaw_payload("exec", {{"workdir", "/"}}, f.ws);
    auto r = f.hook(p, {"--agent", "openclaw"});
    json out = answer(r, 2);
    CHECK(out["decision"] == "deny");
    CHECK(r.err.find("/params/command") != std::string::npos);
    json q = openclaw_payload("exec", {{"command", "ls"}}, f.ws);
    q["params"] = "ls";
    CHECK(answer(f.hook(q), 2)["decision"] == "deny");
}
