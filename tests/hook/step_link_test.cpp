// A decision and the step it starts share one id: the hook writes a fresh one into its rewrite
// (`toolcage run --step-id ID`), its decision line carries it and the policy's name, the real
// `toolcage run` logs the step under it, and `toolcage log --format ocsf` keeps the join. An id
// that is not 16 of 0-9 a-f is refused before anything runs.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

std::vector<json> json_lines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (json j = json::parse(line, nullptr, false); j.is_object()) out.push_back(j);
    return out;
}

std::string step_of(const std::string& rw) {
    std::smatch m;
    static const std::regex id(" --step-id ([0-9a-f]{16}) ");
    return std::regex_search(rw, m, id) ? m[1].str() : std::string();
}

bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("step id: the hook's decision, the step it starts and their OCSF events share one id",
          "[step-id]") {
    HookFixture f;
    // A caged command and a read-only one: each decision names the step it starts. (The
    // scratch workspace lies in the build tree, beside toolcage's binary, where no step writes.)
    for (const auto& [command, verdict, read_only] :
         {std::tuple{std::string("touch made-by-step || true"), "cage", false}, std::tuple{std::string("ls"), "allow", true}}) {
        INFO(command);
        ::unlink(f.log.c_str());
        auto r = f.hook(hermes_terminal(command, f.ws));
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        json answer = parse_out(r);
        REQUIRE(answer["action"] == "modify");
        const std::string rw = answer["args"]["command"];
        const std::string id = step_of(rw);
        REQUIRE(id.size() == 16);

        // The agent's shell runs the rewrite: the real cage.
        auto ran = run_binary("/bin/bash", {"-c", rw}, "", f.env);
        INFO(ran.out << ran.err);
        REQUIRE(ran.exit_code == 0);

        auto lines = json_lines(read_file(f.log));
        REQUIRE(lines.size() == 2);
        const json& decision = lines[0];
        const json& step = lines[1];
        CHECK(decision["verdict"] == verdict);
        CHECK(decision["step"] == id);
        CHECK(decision["policy"] == "default");
        CHECK(step["event"] == "step");
        CHECK(step["step"] == id);
        CHECK(step["profile"] == "default");
        CHECK(step["read_only"] == read_only);

        auto log = run_binary(TOOLCAGE_BIN, {"log", "--file", f.log, "--format", "ocsf", "--all"}, "", f.env);
        INFO(log.out << log.err);
        REQUIRE(log.exit_code == 0);
        auto events = json_lines(log.out);
        REQUIRE(events.size() == 2);
        CHECK(events[0]["class_uid"] == 1007);
        CHECK(events[0]["activity_name"] == "Launch");
        CHECK(events[0]["unmapped"]["step"] == id);
        CHECK(events[0]["unmapped"]["policy"] == "default");
        CHECK(events[1]["activity_name"] == "Terminate");
        CHECK(events[1]["unmapped"]["step"] == id);
        CHECK(events[1]["unmapped"]["policy"] == "default");
    }
}

TEST_CASE("step id: the shell hook's pass of the rewrite and an ask name the step too", "[step-id]") {
    HookFixture f;
    auto r = f.hook(hermes_terminal("touch x", f.ws));
    REQUIRE(r.exit_code == 0);
    const std::string rw = parse_out(r)["args"]["command"];
    const std::string id = step_of(rw);
    REQUIRE(id.size() == 16);
    // Hermes's shell hook sees the rewrite: its decision names the same step.
    ::unlink(f.log.c_str());
    auto again = f.hook(hermes_terminal(rw, "/"));
    REQUIRE(again.out == "{}\n");
    auto lines = json_lines(read_file(f.log));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["rule"] == "hook.own-rewrite");
    CHECK(lines[0]["step"] == id);
    // Two calls, two steps: a fresh id each time.
    auto other = f.hook(hermes_terminal("touch x", f.ws));
    CHECK(step_of(parse_out(other)["args"]["command"]) != id);
    // An ask carries the caged rewrite a person may approve, and its id.
    ::unlink(f.log.c_str());
    auto ask = f.hook(hermes_terminal("echo ask-me", f.ws), {"--policy", f.ask_policy(true)});
    json a = parse_out(ask);
    REQUIRE(a["action"] == "approve");
    lines = json_lines(read_file(f.log));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["verdict"] == "ask");
    CHECK(lines[0]["policy"] == "ask-approve");
    CHECK(lines[0]["step"] == step_of(a["args"]["command"]));
    // A deny starts no step.
    ::unlink(f.log.c_str());
    f.hook(hermes_terminal("rm -rf ~", f.ws));
    lines = json_lines(read_file(f.log));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["verdict"] == "deny");
    CHECK_FALSE(lines[0].contains("step"));
    CHECK(lines[0]["policy"] == "default");
}

TEST_CASE("step id: toolcage run refuses an id that is not 16 hex characters, and runs nothing",
          "[step-id]") {
    HookFixture f;
    const std::string mark = f.ws + "/ran";  // a step here could not write it; the log shows a run
    for (std::string id : {"../../etc/passwd", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
                           "0123456789abcdeg", "$(id)", "0123456789abcde\n", " 0123456789abcdef"}) {
        INFO(id);
        auto r = run_binary(TOOLCAGE_BIN,
                            {"run", "--step-id", id, "--workdir", f.ws, "--", "/bin/sh", "-c", "touch " + mark},
                            "", f.env);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find("--step-id must be 16 characters of 0-9 and a-f") != std::string::npos);
        CHECK_FALSE(exists(f.log));  // no step ran, so none was logged
    }
    // The legitimate path beside it: a well-formed id runs, and labels the step's line.
    auto ok = run_binary(TOOLCAGE_BIN,
                         {"run", "--step-id", "00112233445566ff", "--workdir", f.ws, "--", "/bin/true"},
                         "", f.env);
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    auto lines = json_lines(read_file(f.log));
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.back()["step"] == "00112233445566ff");
}
