// The OCSF events built from log lines: one class per kind of line, the fields a SIEM reads,
// and nothing for lines that are not events. (Schema validity: rsyslog_test.py.)
#include <catch2/catch.hpp>

#include "fleet/ocsf_event.h"

using toolcage::fleet::epoch_ms;
using toolcage::fleet::EventSource;
using toolcage::fleet::ocsf_event;

namespace {

const EventSource kSource{"0.1.0", "build-7"};

nlohmann::json event_of(const std::string& line) {
    auto e = ocsf_event(line, kSource);
    REQUIRE(e.has_value());
    return *e;
}

const std::string kDeny =
    R"({"time":"2026-11-30T18:44:17.123Z","agent":"claude","profile":"worker","session":"s1","tool":"Bash",)"
    R"("verdict":"deny","rule":"rm.home","reason":"`rm` deletes /root","us":120,"command":"rm -rf ~","kind":"shell"})";

}  // namespace

TEST_CASE("a deny is a detection finding naming the rule, the reason, the command and the agent") {
    auto e = event_of(kDeny);
    CHECK(e["class_uid"] == 2004);
    CHECK(e["category_uid"] == 2);
    CHECK(e["activity_id"] == 1);
    CHECK(e["type_uid"] == 200401);
    CHECK(e["time"] == 1796064257123LL);
    CHECK(e["action_id"] == 2);
    CHECK(e["action"] == "Denied");
    CHECK(e["disposition_id"] == 2);
    CHECK(e["severity_id"] == 3);
    CHECK(e["finding_info"]["uid"] == e["metadata"]["uid"]);
    CHECK(e["finding_info"]["title"] == "toolcage deny: rm.home");
    CHECK(e["finding_info"]["desc"] == "`rm` deletes /root");
    CHECK(e["firewall_rule"]["uid"] == "rm.home");
    CHECK(e["actor"]["app_name"] == "claude");
    CHECK(e["evidences"][0]["process"]["cmd_line"] == "rm -rf ~");
    CHECK(e["evidences"][0]["process"]["name"] == "rm");
    CHECK(e["metadata"]["product"]["name"] == "toolcage");
    CHECK(e["metadata"]["product"]["version"] == "0.1.0");
    CHECK(e["metadata"]["version"] == "1.8.0");
    CHECK(e["device"]["hostname"] == "build-7");
    CHECK(e["unmapped"]["profile"] == "worker");
    CHECK_FALSE(e["unmapped"].contains("step"));  // absent, not empty
}

TEST_CASE("an ask is held for approval; in audit mode a would-be deny is only observed") {
    std::string ask = kDeny;
    ask.replace(ask.find("\"deny\""), 6, "\"ask\"");
    auto e = event_of(ask);
    CHECK(e["class_uid"] == 2004);
    CHECK(e["action_id"] == 99);
    CHECK(e["action"] == "Ask");
    CHECK(e["disposition_id"] == 14);
    CHECK(e["severity_id"] == 2);

    std::string audit = kDeny;
    audit.insert(audit.size() - 1, R"(,"mode":"audit","answered":"allow")");
    auto a = event_of(audit);
    CHECK(a["class_uid"] == 2004);
    CHECK(a["action_id"] == 3);
    CHECK(a["disposition_id"] == 17);
    CHECK(a["unmapped"]["mode"] == "audit");
}

TEST_CASE("allow and cage are the launch of the step they start") {
    auto allow = event_of(
        R"({"time":"2026-11-30T18:00:00.000Z","agent":"hermes","verdict":"allow",)"
        R"("rule":"readonly","reason":"read-only","command":"git status","kind":"shell","us":80})");
    CHECK(allow["class_uid"] == 1007);
    CHECK(allow["activity_id"] == 1);
    CHECK(allow["activity_name"] == "Launch");
    CHECK(allow["disposition_id"] == 1);
    CHECK(allow["process"]["cmd_line"] == "git status");
    CHECK(allow["process"]["name"] == "git");
    CHECK(allow["actor"]["app_name"] == "hermes");
    CHECK(allow["unmapped"]["hook_us"] == 80);

    auto cage = event_of(R"({"time":"2026-11-30T18:00:00.000Z","agent":"hermes","verdict":"cage",)"
                         R"("rule":"build","reason":"runs code","command":"make","kind":"shell"})");
    CHECK(cage["class_uid"] == 1007);
    CHECK(cage["action_id"] == 1);
    CHECK(cage["disposition_id"] == 99);
    CHECK(cage["disposition"] == "Caged");

    auto write = event_of(
        R"({"time":"2026-11-30T18:00:00.000Z","agent":"claude","tool":"Write","verdict":"allow",)"
        R"("command":"/ws/a.txt","kind":"write"})");
    CHECK(write["activity_id"] == 99);
    CHECK(write["activity_name"] == "Write call");
    CHECK_FALSE(write["process"].contains("name"));
}

TEST_CASE("a step's end says its exit status, what the cage refused, and its id") {
    auto e = event_of(
        R"({"time":"2026-11-30T18:00:01.500Z","event":"step","tool":"run","profile":"forge","workspace":"/ws",)"
        R"("network":"netns","relay":true,"read_only":false,"landlock_abi":4,"status":7,"command":"/bin/bash -c make",)"
        R"("step":"0123456789abcdef","refusals":[{"access":"connect","target":"evil.example:443","fix":"…"}]})");
    CHECK(e["class_uid"] == 1007);
    CHECK(e["activity_id"] == 2);
    CHECK(e["exit_code"] == 7);
    CHECK(e["status_id"] == 2);
    CHECK(e["disposition_id"] == 2);
    CHECK(e["status_detail"] == "refused: connect evil.example:443");
    CHECK(e["unmapped"]["step"] == "0123456789abcdef");
    CHECK(e["unmapped"]["policy"] == "forge");
    CHECK(e["unmapped"]["refusals"].size() == 1);
    CHECK(e["time"] == 1796061601500LL);

    auto ok = event_of(
        R"({"time":"2026-11-30T18:00:01.500Z","event":"step","status":0,"command":"true","read_only":true})");
    CHECK(ok["status_id"] == 1);
    CHECK(ok["disposition_id"] == 1);
    CHECK(ok["message"] == "read-only step exited with status 0");
}

TEST_CASE("a relay connection is network activity: open or refused, and why") {
    auto deny = event_of(
        R"({"time":"2026-11-30T18:00:02.000Z","event":"connect","client":"127.0.0.1:40000","host":"evil.example",)"
        R"("port":443,"verdict":"deny","status":403,"reason":"not on the allowlist","mode":"direct","bytes_up":0,)"
        R"("bytes_down":0,"ms":3,"step":"abcd"})");
    CHECK(deny["class_uid"] == 4001);
    CHECK(deny["activity_id"] == 5);
    CHECK(deny["action_id"] == 2);
    CHECK(deny["status_code"] == "403");
    CHECK(deny["status_detail"] == "not on the allowlist");
    CHECK(deny["dst_endpoint"]["hostname"] == "evil.example");
    CHECK(deny["dst_endpoint"]["port"] == 443);
    CHECK(deny["src_endpoint"]["ip"] == "127.0.0.1");
    CHECK(deny["src_endpoint"]["port"] == 40000);
    CHECK(deny["unmapped"]["step"] == "abcd");
    CHECK(deny["metadata"]["log_name"] == "relay");

    auto allow = event_of(
        R"({"time":"2026-11-30T18:00:02.000Z","event":"connect","client":"[::1]:5","host":"pypi.org","port":443,)"
        R"("verdict":"allow","status":200,"reason":"","mode":"direct","address":"151.101.0.223:443","bytes_up":10,"bytes_down":20,"ms":40})");
    CHECK(allow["activity_id"] == 1);
    CHECK(allow["action_id"] == 1);
    CHECK(allow["src_endpoint"]["ip"] == "::1");
    CHECK(allow["duration"] == 40);
    CHECK(allow["unmapped"]["bytes_down"] == 20);
}

TEST_CASE("a request on an inspected host is http activity: its method, url, rule and binding") {
    auto allow = event_of(
        R"({"time":"2026-11-30T18:00:03.000Z","event":"request","client":"127.0.0.1:40001",)"
        R"("host":"git.example.com:443","method":"GET","path":"/org/repo.git/info/refs","verdict":"allow",)"
        R"("credential":true,"credential_binding":{"host":"git.example.com","kind":"basic"},"step":"s9"})");
    CHECK(allow["class_uid"] == 4002);
    CHECK(allow["category_uid"] == 4);
    CHECK(allow["activity_id"] == 3);
    CHECK(allow["activity_name"] == "Get");
    CHECK(allow["type_uid"] == 400203);
    CHECK(allow["action_id"] == 1);
    CHECK(allow["severity_id"] == 1);
    CHECK(allow["http_request"]["http_method"] == "GET");
    CHECK(allow["http_request"]["url"]["hostname"] == "git.example.com");
    CHECK(allow["http_request"]["url"]["path"] == "/org/repo.git/info/refs");
    CHECK(allow["http_request"]["url"]["url_string"] ==
          "https://git.example.com/org/repo.git/info/refs");
    CHECK_FALSE(allow["http_request"]["url"].contains("query_string"));
    CHECK_FALSE(
        allow.contains("http_response"));  // forwarded: the server's answer goes back unread
    CHECK(allow["dst_endpoint"]["hostname"] == "git.example.com");
    CHECK(allow["dst_endpoint"]["port"] == 443);
    CHECK(allow["src_endpoint"]["port"] == 40001);
    CHECK(allow["unmapped"]["credential_binding"] ==
          nlohmann::json{{"host", "git.example.com"}, {"kind", "basic"}});
    CHECK(allow["unmapped"]["step"] == "s9");

    auto deny = event_of(
        R"({"time":"2026-11-30T18:00:04.000Z","event":"request","host":"git.example.com:8443","method":"POST",)"
        R"("path":"/org/repo.git/git-receive-pack","verdict":"deny","status":403,)"
        R"("reason":"refused by relay.requests[\"git.example.com\"].deny[0]",)"
        R"("rule":"relay.requests[\"git.example.com\"].deny[0]"})");
    CHECK(deny["activity_id"] == 6);
    CHECK(deny["action_id"] == 2);
    CHECK(deny["disposition_id"] == 2);
    CHECK(deny["severity_id"] == 3);
    CHECK(deny["http_response"]["code"] == 403);
    CHECK(deny["status_code"] == "403");
    CHECK(deny["firewall_rule"]["uid"] == "relay.requests[\"git.example.com\"].deny[0]");
    CHECK(deny["http_request"]["url"]["port"] == 8443);
    CHECK(deny["http_request"]["url"]["url_string"] ==
          "https://git.example.com:8443/org/repo.git/git-receive-pack");

    auto other = event_of(
        R"({"time":"2026-11-30T18:00:05.000Z","event":"request","host":"h.example:443","method":"PROPFIND",)"
        R"("path":"/","verdict":"allow"})");
    CHECK(other["activity_id"] == 99);
    CHECK(other["activity_name"] == "PROPFIND");
}

TEST_CASE("a write into later sessions is a finding, even when allowed") {
    const std::string line =
        R"({"time":"2026-11-30T18:44:17.123Z","agent":"hermes","profile":"worker","session":"s1","tool":"memory",)"
        R"("verdict":"allow","rule":"persist.memory","reason":"r","us":120,"command":"add: run ./boot.sh first",)"
        R"("kind":"persist","channel":"memory"})";
    auto e = event_of(line);
    CHECK(e["class_uid"] == 2004);
    CHECK(e["action"] == "Allowed");
    CHECK(e["disposition"] == "Logged");
    CHECK(e["finding_info"]["types"] == nlohmann::json::array({"Persistence"}));
    CHECK(e["evidences"][0]["process"]["cmd_line"] == "add: run ./boot.sh first");
    CHECK(e["unmapped"]["channel"] == "memory");
    std::string asked = line;
    asked.replace(asked.find("\"allow\""), 7, "\"ask\"");
    CHECK(event_of(asked)["action"] == "Ask");
    CHECK(event_of(asked)["finding_info"]["types"] == nlohmann::json::array({"Persistence"}));
}

TEST_CASE("a tamper line is a high-severity finding") {
    auto e = event_of(
        R"({"time":"2026-11-30T18:00:00.000Z","event":"tamper","tool":"run","verdict":"tamper",)"
        R"("rule":"cage.tamper","reason":"changed .git/hooks/pre-commit","path":".git/hooks/pre-commit",)"
        R"("change":"modified","action":"restored","undone":true,"workspace":"/ws","profile":"default","command":"make"})");
    CHECK(e["class_uid"] == 2004);
    CHECK(e["severity_id"] == 4);
    CHECK(e["disposition_id"] == 9);
}

TEST_CASE("a held change is a finding: put back, kept for a person to land") {
    auto e = event_of(
        R"({"time":"2026-11-30T18:00:00.000Z","event":"held","tool":"run","verdict":"held",)"
        R"("rule":"cage.hold.dot-file","reason":".npmrc created: a dot-file","path":".npmrc",)"
        R"("change":"created","workspace":"/ws","step":"0123456789abcdef","command":"npm i"})");
    CHECK(e["class_uid"] == 2004);
    CHECK(e["severity_id"] == 4);
    CHECK(e["disposition_id"] == 9);
    CHECK(e["finding_info"]["types"] == nlohmann::json::array({"Held change"}));
    CHECK(e["unmapped"]["path"] == ".npmrc");
}

TEST_CASE("lines that are not events give none") {
    CHECK_FALSE(ocsf_event("", kSource));
    CHECK_FALSE(ocsf_event("not json", kSource));
    CHECK_FALSE(ocsf_event("[1,2]", kSource));
    CHECK_FALSE(
        ocsf_event(R"({"time":"2026-11-30T18:00:00.000Z","verdict":"deny"")", kSource));  // torn
    CHECK_FALSE(ocsf_event(R"({"verdict":"deny","rule":"x"})", kSource));                 // no time
    CHECK_FALSE(ocsf_event(R"({"time":"yesterday","verdict":"deny"})", kSource));
    CHECK_FALSE(ocsf_event(
        R"({"time":"2026-11-30T18:00:00.000Z","level":"info","event":"listening","message":"x"})",
        kSource));
    CHECK_FALSE(ocsf_event(R"({"time":"2026-11-30T18:00:00.000Z","verdict":"maybe"})", kSource));
}

TEST_CASE("one uid per event: the same line the same uid, another line another") {
    auto a = event_of(kDeny), b = event_of(kDeny + "\n");
    CHECK(a["metadata"]["uid"] == b["metadata"]["uid"]);
    std::string other = kDeny;
    other[other.find("120")] = '3';
    CHECK(event_of(other)["metadata"]["uid"] != a["metadata"]["uid"]);
    CHECK(a["metadata"]["uid"].get<std::string>().size() == 36);
}

TEST_CASE("times are milliseconds since the epoch") {
    CHECK(epoch_ms("1970-01-01T00:00:00.000Z") == 0);
    CHECK(epoch_ms("1970-01-01T00:00:01Z") == 1000);
    CHECK(epoch_ms("2026-11-30T18:44:17.123Z") == 1796064257123LL);
    CHECK_FALSE(epoch_ms("2026-11-30 18:44:17.123Z"));
    CHECK_FALSE(epoch_ms("2026-13-30T18:44:17.123Z"));
    CHECK_FALSE(epoch_ms("2026-11-30T18:44:17.12xZ"));
}

TEST_CASE(
    "a line with fields of the wrong type still gives an event; bytes that are not UTF-8 none") {
    // Log lines hold what the agent sent (commands, paths) and what a step printed: any bytes.
    const std::string lines[] = {
        R"({"time":"2026-11-30T18:00:00.000Z","verdict":"deny","rule":7,"reason":null,"command":["rm"],"agent":{}})",
        R"({"time":"2026-11-30T18:00:00.000Z","event":"step","status":"7","refusals":{"a":1},"read_only":"yes"})",
        R"({"time":"2026-11-30T18:00:00.000Z","event":"step","status":1,"refusals":[1,"x",null]})",
        R"({"time":"2026-11-30T18:00:00.000Z","event":"connect","verdict":"deny","port":99999999999,"client":"::::","ms":-1})",
        R"({"time":"2026-11-30T18:00:00.000Z","event":"connect","verdict":"allow","port":-3,"client":"1.2.3.4:notaport"})",
    };
    // The log's writers replace bytes that are not UTF-8; a line that still has them is not
    // JSON, and gives no event rather than an exception.
    CHECK_FALSE(ocsf_event(
        "{\"time\":\"2026-11-30T18:00:00.000Z\",\"verdict\":\"allow\",\"command\":\"ls \xff\xfe\"}",
        kSource));
    for (const auto& line : lines) {
        INFO(line);
        std::optional<nlohmann::json> e;
        REQUIRE_NOTHROW(e = ocsf_event(line, kSource));
        REQUIRE(e.has_value());
        std::string text;
        REQUIRE_NOTHROW(text = e->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        CHECK(nlohmann::json::parse(text)["metadata"]["uid"].get<std::string>().size() == 36);
        if ((*e)["class_uid"] == 4001 && (*e)["dst_endpoint"].contains("port")) {
            CHECK((*e)["dst_endpoint"]["port"] >= 1);
            CHECK((*e)["dst_endpoint"]["port"] <= 65535);
        }
    }
}
