// What the agent sends is read within bounds: a payload nested deeper than the JSON bound is
// refused before it is parsed (the parser recurses a level), directory moves that multiply the
// directories a command may run in stop at a bound, and a long run of leading moves is split
// off in one pass. Past a bound the call is refused (input.too-complex), never a crash.
#include <catch2/catch.hpp>

#include "common/analysis_budget.h"
#include "fixture.h"
#include "hook/decision/self_protect.h"
#include "hook/decision/shell_state.h"

using namespace toolcage::test;
using nlohmann::json;
namespace budget = toolcage::budget;

namespace {

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace

TEST_CASE("json depth: the first bracket past the bound, brackets in strings not counted", "[bounds]") {
    CHECK(budget::json_too_deep_at("[[[]]]", 3) == std::string_view::npos);
    CHECK(budget::json_too_deep_at("[[[]]]", 2) == 2);
    CHECK(budget::json_too_deep_at(R"({"a": "[[[[", "b": [1]})", 2) == std::string_view::npos);
    CHECK(budget::json_too_deep_at(R"({"a": "\"[[[[", "b": {"c": 1}})", 1) == 21);
    CHECK(budget::json_too_deep_at(R"(["\\", [1]])", 1) == 7);
    std::string deep = repeat("[", 200000) + repeat("]", 200000);
    CHECK(budget::json_too_deep_at(deep) == budget::kMaxJsonDepth);
}

TEST_CASE("hook: a payload nested 200000 deep is refused, not parsed", "[bounds][claude]") {
    HookFixture f;
    json call = claude_bash("ls", f.ws);
    std::string text = call.dump();
    // An extra field holding the nesting: the agent's JSON, whatever the field.
    text.insert(1, "\"x\": " + repeat("[", 200000) + repeat("]", 200000) + ", ");
    RunResult r = f.hook(text, {"--agent", "claude"});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("nests arrays and objects more than 256 deep") != std::string::npos);
    RunResult o = f.hook(repeat("{\"a\":", 100000) + "1" + repeat("}", 100000), {"--agent", "claude"});
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("more than 256 deep") != std::string::npos);
    // Nesting within the bound is read as usual.
    std::string ok = call.dump();
    ok.insert(1, "\"x\": " + repeat("[", 100) + repeat("]", 100) + ", ");
    RunResult fine = f.hook(ok, {"--agent", "claude"});
    CHECK(fine.exit_code == 0);
    CHECK(parse_out(fine)["hookSpecificOutput"]["permissionDecision"] == "allow");
}

TEST_CASE("hook: a command whose variable doubles is denied as too complex", "[bounds][claude]") {
    HookFixture f;
    RunResult r = f.hook(claude_bash("x=a; " + repeat("x=$x$x; ", 40) + "echo $x", f.ws), {"--agent", "claude"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    json h = parse_out(r)["hookSpecificOutput"];
    CHECK(h["permissionDecision"] == "deny");
    CHECK(h["permissionDecisionReason"].get<std::string>().find("65536 bytes") != std::string::npos);
    CHECK(read_file(f.log).find("\"rule\":\"input.too-complex\"") != std::string::npos);
}

TEST_CASE("self-protection: directory moves past the bound of bases are refused", "[bounds][self-protect]") {
    TempDir root;
    toolcage::hook::ToolCall call;
    call.profile_dir = root / "home/.hermes";
    make_dirs(call.profile_dir);
    auto set = toolcage::hook::protected_set(call, {}, root / "bin", root / "home");
    std::string moves;
    for (int i = 0; i < 20; ++i) moves += "cd d" + std::to_string(i) + "; ";
    auto v = toolcage::hook::check_command(moves + "echo x > f", root / "ws", set, false);
    REQUIRE(v.has_value());
    CHECK(v->decision == toolcage::Decision::deny);
    CHECK(v->rule == "input.too-complex");
    CHECK(v->reason.find("256 directories") != std::string::npos);
    // The same directory again and again is one base.
    CHECK_FALSE(toolcage::hook::check_command(repeat("cd .; ", 5000) + "echo x > f", root / "ws", set, false));
    // A few moves still find the protected file.
    auto p = toolcage::hook::check_command("cd a; cd b; cd " + root.path() + "/home; cd .hermes; echo x > SOUL.md",
                                           root / "ws", set, false);
    REQUIRE(p.has_value());
    CHECK(p->rule == "self.protected");
    // Many words from many bases: bounded too.
    std::string words = repeat("w ", 50000);
    std::string seven;
    for (int i = 0; i < 7; ++i) seven += "cd e" + std::to_string(i) + "; ";
    auto w = toolcage::hook::check_command(seven + "echo " + words, root / "ws", set, false);
    REQUIRE(w.has_value());
    CHECK(w->rule == "input.too-complex");
}

TEST_CASE("shell state: thousands of leading moves are split off in one pass", "[bounds][shell-state]") {
    auto split = toolcage::hook::split_shell_state(repeat("cd . && ", 20000) + "make");
    REQUIRE(split);
    CHECK(split->inside == "make");
    CHECK(split->outside == "builtin cd '.'" + repeat(" && builtin cd '.'", 19999));
    // The && inside a quoted directory name is not the split.
    auto q = toolcage::hook::split_shell_state("cd 'a && b' && ls -l");
    REQUIRE(q);
    CHECK(q->outside == "builtin cd './a && b'");
    CHECK(q->inside == "ls -l");
    auto nl = toolcage::hook::split_shell_state("cd a &&\n  make");
    REQUIRE(nl);
    CHECK(nl->inside == "\n  make");
    CHECK_FALSE(toolcage::hook::split_shell_state("cd a &\\\n& make"));
    CHECK_FALSE(toolcage::hook::split_shell_state("cd $x && make"));
}
