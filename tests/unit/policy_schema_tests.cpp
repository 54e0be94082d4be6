// Validation of single policy documents: every error names the file, the pointer and the fix.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/policy_schema.h"

using nlohmann::json;
using toolcage::Error;

namespace {
std::string error_of(const std::string& text) {
    try {
        toolcage::validate_policy_json(json::parse(text), "p.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("a policy rejects a port out of range with file, pointer, value and fix") {
    std::string e = error_of(R"({"relay": {"allow": ["a.org", "b.org", "c.org", "api.anthropic.com:99999"]}})");
    CHECK(e == "p.json: /relay/allow/3: \"api.anthropic.com:99999\": port out of range; use host:PORT "
               "with PORT from 1 to 65535");
}

TEST_CASE("each malformed field is reported at its pointer") {
    struct Case {
        const char* doc;
        const char* prefix;
    };
    const Case cases[] = {
        {R"([1])", "p.json: /: a policy is a JSON object"},
        {R"({"nmae": "x"})", "p.json: /nmae: unknown field"},
        {R"({"extends": "../etc/x"})", "p.json: /extends: \"../etc/x\": a policy name"},
        {R"({"on_cage": "allow"})", "p.json: /on_cage: \"allow\": a cage verdict can become"},
        {R"({"on_cage": "maybe"})", "p.json: /on_cage: \"maybe\": not a verdict"},
        {R"({"overrides": {"Rm Home": "allow"}})", "p.json: /overrides/Rm Home: not a rule id"},
        {R"({"overrides": {"rm.home": "yes"}})", "p.json: /overrides/rm.home: \"yes\": not a verdict"},
        {R"({"rules": [{"id": "x.y", "program": "docker", "verdict": "deny"}]})", "p.json: /rules/0: missing \"reason\""},
        {R"({"rules": [{"id": "x.y", "program": "/usr/bin/docker", "verdict": "deny", "reason": "r"}]})",
         "p.json: /rules/0/program: "},
        {R"({"rules": [{"id": "x.y", "program": "d", "verdict": "deny", "reason": "r", "paths": ["attic"]}]})",
         "p.json: /rules/0/paths/0: \"attic\": not a path class"},
        {R"({"cage": {"write": ["relative/dir"]}})", "p.json: /cage/write/0: \"relative/dir\": must be an absolute path"},
        {R"({"cage": {"read": ["{workdir}/x"]}})", "p.json: /cage/read/0: \"{workdir}/x\": unknown placeholder"},
        {R"({"cage": {"read": ["/usr/../etc"]}})", "p.json: /cage/read/0: \"/usr/../etc\": must not contain"},
        {R"({"cage": {"network": "wifi"}})", "p.json: /cage/network: \"wifi\": use one of auto, netns, landlock"},
        {R"({"cage": {"min_abi": 0}})", "p.json: /cage/min_abi: 0: must be a whole number from 1"},
        {R"({"cage": {"limits": {"nproc": -1}}})", "p.json: /cage/limits/nproc: -1: must be a whole number"},
        {R"({"cage": {"limits": {"procs": 1}}})", "p.json: /cage/limits/procs: unknown field"},
        {R"({"cage": {"protected_paths": ["/abs"]}})", "p.json: /cage/protected_paths/0: \"/abs\": a path relative"},
        {R"({"cage": {"protect": "mount"}})", "p.json: /cage/protect: \"mount\": use \"check\" (restore after the step) or \"landlock\""},
        {R"({"relay": {"allow": ["*"]}})", "p.json: /relay/allow/0: \"*\": \"*\" would allow every host"},
        {R"({"relay": {"allow": ["*.com"]}})", "p.json: /relay/allow/0: \"*.com\": a wildcard must name at least two labels"},
        {R"({"relay": {"allow": ["https://x.org"]}})", "p.json: /relay/allow/0: \"https://x.org\": "},
        {R"({"relay": {"allow": ["Example.org"]}})", "p.json: /relay/allow/0: \"Example.org\": host names are written in lowercase"},
        {R"({"relay": {"allow": ["a..b"]}})", "p.json: /relay/allow/0: \"a..b\": not a valid host name"},
        {R"({"relay": {"enabled": "yes"}})", "p.json: /relay/enabled: \"yes\": must be true or false"},
        {R"({"relay": {"upstream": "socks5://x:1"}})", "p.json: /relay/upstream: \"socks5://x:1\": must be"},
    };
    for (const auto& c : cases) {
        INFO(c.doc);
        std::string e = error_of(c.doc);
        CHECK(e.rfind(c.prefix, 0) == 0);
        INFO(e);
        CHECK(!e.empty());
    }
}

TEST_CASE("valid allowlist entries pass") {
    for (const char* ok : {"pypi.org", "pypi.org:443", "*.example.com", "*.example.com:8443",
                           "a-b.c_d.example.org", "{npm_registry}", "localhost:1"})
        CHECK(toolcage::check_allow_entry(ok).empty());
}

TEST_CASE("a full document converts to the model") {
    auto doc = json::parse(R"({"name": "t", "on_cage": "deny", "overrides": {"git.reset-hard": "ask"},
        "rules": [{"id": "t.docker", "program": "docker", "args": ["run"], "paths": ["home"], "verdict": "ask", "reason": "r"}],
        "cage": {"write": ["{workspace}"], "min_abi": 4, "limits": {"nproc": 64}},
        "relay": {"enabled": true, "allow": ["pypi.org"]}})");
    auto p = toolcage::policy_from_json(doc, "t.json");
    CHECK(p.name == "t");
    CHECK(p.on_cage == toolcage::Decision::deny);
    CHECK(p.overrides.at("git.reset-hard") == toolcage::Decision::ask);
    REQUIRE(p.rules.size() == 1);
    CHECK(p.rules[0].paths == std::vector<toolcage::PathClass>{toolcage::PathClass::home});
    CHECK(p.cage.min_abi == 4);
    CHECK(p.cage.limits.nproc == 64);
    CHECK(p.cage.limits.nofile == 4096);
    CHECK(p.relay.enabled);
    CHECK(p.relay.allow == std::vector<std::string>{"pypi.org"});
}
