// Reading the decision log back: lines, filters, --since and the programs a command runs.
#include <catch2/catch.hpp>

#include "common/decision_log_query.h"
#include "common/error.h"

using namespace toolcage;

TEST_CASE("a log line is read into its fields; a torn one is not", "[log]") {
    auto e = parse_log_line(
        R"({"time":"2026-11-30T18:44:17.123Z","agent":"hermes","tool":"terminal","kind":"shell","verdict":"deny","rule":"rm.home","reason":"r","command":"rm -rf ~","mode":"audit"})");
    REQUIRE(e);
    CHECK(e->verdict == "deny");
    CHECK(e->rule == "rm.home");
    CHECK(e->mode == "audit");
    CHECK(e->is_decision());
    auto step = parse_log_line(R"({"time":"t","event":"step","status":3,"refusals":[{},{}]})");
    REQUIRE(step);
    CHECK_FALSE(step->is_decision());
    CHECK(step->status == 3);
    CHECK(step->refusals == 2);
    CHECK_FALSE(parse_log_line("{\"time\": \"2026"));
    CHECK_FALSE(parse_log_line("[1,2]"));
}

TEST_CASE("filters: verdicts, time, agent and rule (exact or a prefix)", "[log]") {
    LogEntry e;
    e.time = "2026-11-30T18:44:17.123Z";
    e.agent = "claude";
    e.verdict = "cage";
    e.rule = "git.push";
    LogFilter f;
    CHECK(matches(e, f));
    f.verdicts = {"deny", "ask"};
    CHECK_FALSE(matches(e, f));
    f.verdicts = {"cage"};
    CHECK(matches(e, f));
    f.since = "2026-11-30T18:44:18";
    CHECK_FALSE(matches(e, f));
    f.since = "2026-11-30";
    CHECK(matches(e, f));
    f.agent = "hermes";
    CHECK_FALSE(matches(e, f));
    f.agent = "claude";
    f.rule = "git.";
    CHECK(matches(e, f));
    f.rule = "git.pus";
    CHECK_FALSE(matches(e, f));
    f.rule = "git.push";
    CHECK(matches(e, f));
}

TEST_CASE("filters: one session, and only what the agent left for later sessions", "[log]") {
    auto e = parse_log_line(
        R"({"time":"2026-11-30T18:44:17.123Z","agent":"hermes","session":"s1","tool":"memory","kind":"persist","channel":"memory","verdict":"ask","rule":"persist.memory","command":"add: x"})");
    REQUIRE(e);
    CHECK(e->channel == "memory");
    CHECK(e->session == "s1");
    LogFilter f;
    f.persisted = true;
    CHECK(matches(*e, f));
    f.session = "s2";
    CHECK_FALSE(matches(*e, f));
    f.session = "s1";
    CHECK(matches(*e, f));
    LogEntry plain = *e;
    plain.channel.clear();
    CHECK_FALSE(matches(plain, f));
}

TEST_CASE("--since takes a duration or an ISO date, and names the fix otherwise", "[log]") {
    auto now = std::chrono::system_clock::from_time_t(1796083200);  // 2026-12-01T00:00:00Z
    CHECK(since_cutoff("1h", now) == "2026-11-30T23:00:00.000Z");
    CHECK(since_cutoff("2d", now) == "2026-11-29T00:00:00.000Z");
    CHECK(since_cutoff("30m", now) == "2026-11-30T23:30:00.000Z");
    CHECK(since_cutoff("1w", now) == "2026-11-24T00:00:00.000Z");
    CHECK(since_cutoff("2026-11-30", now) == "2026-11-30");
    CHECK(since_cutoff("2026-11-30T18:00", now) == "2026-11-30T18:00");
    CHECK(since_cutoff("2026-11-30 18:00:05Z", now) == "2026-11-30T18:00:05");
    for (const char* bad :
         {"", "yesterday", "1y", "h", "2026-13", "2026-11-30T1", "99999999999999999999d"})
        CHECK_THROWS_AS(since_cutoff(bad, now), Error);
}

TEST_CASE("the programs of a logged command: first words, past assignments and wrappers", "[log]") {
    using V = std::vector<std::string>;
    CHECK(programs_of("git status") == V{"git"});
    CHECK(programs_of("cd /w && npm install && npm test") == V{"cd", "npm"});
    CHECK(programs_of("FOO=1 BAR=2 make -j4") == V{"make"});
    CHECK(programs_of("sudo -n apt-get update | tee log; /usr/bin/python3 x.py") ==
          V{"apt-get", "python3", "tee"});
    CHECK(programs_of("echo 'a; rm -rf /' | sh") == V{"echo", "sh"});
    CHECK(programs_of("").empty());
}

TEST_CASE("counts by verdict, rule, agent and program", "[log]") {
    LogStats s;
    for (
        const char* line :
        {R"({"verdict":"deny","rule":"rm.home","agent":"hermes","kind":"shell","command":"rm -rf ~"})",
         R"({"verdict":"allow","rule":"readonly.git","agent":"claude","kind":"shell","command":"git log"})",
         R"({"verdict":"deny","rule":"file.outside-workspace","agent":"claude","kind":"write","command":"/etc/passwd"})",
         R"({"event":"step","status":0,"command":"make"})"}) {
        auto e = parse_log_line(line);
        REQUIRE(e);
        count_entry(s, *e);
    }
    CHECK(s.decisions == 3);
    CHECK(s.steps == 1);
    CHECK(s.by_verdict["deny"] == 2);
    CHECK(s.by_agent["claude"] == 2);
    CHECK(s.by_program["rm"] == 1);
    CHECK(s.by_program["git"] == 1);
    CHECK(s.by_program.count("/etc/passwd") == 0);  // a file write names no program
}
