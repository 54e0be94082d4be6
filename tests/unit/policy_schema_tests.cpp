// Validation of single policy documents: every error names the file, the pointer and the fix.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/host_names.h"
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
        {R"({"relay": {"allow": ["*"]}})", "p.json: /relay/allow/0: \"*\": a bare wildcard would allow every host"},
        {R"({"relay": {"allow": ["*.com"]}})", "p.json: /relay/allow/0: \"*.com\": a wildcard must name at least two labels"},
        {R"({"relay": {"allow": ["https://x.org"]}})", "p.json: /relay/allow/0: \"https://x.org\": not a host name: write host, host:port"},
        {R"({"relay": {"allow": ["Example.org"]}})", "p.json: /relay/allow/0: \"Example.org\": host names are written in lowercase"},
        {R"({"relay": {"allow": ["a..b"]}})", "p.json: /relay/allow/0: \"a..b\": the host name has an empty label"},
        {R"({"relay": {"enabled": "yes"}})", "p.json: /relay/enabled: \"yes\": must be true or false"},
        {R"({"relay": {"credentialed": "api.anthropic.com"}})", "p.json: /relay/credentialed: "},
        {R"({"relay": {"credentialed": ["API.anthropic.com"]}})", "p.json: /relay/credentialed/0: \"API.anthropic.com\": host names are written in lowercase"},
        {R"({"relay": {"credentialed": ["*.com"]}})", "p.json: /relay/credentialed/0: \"*.com\": a wildcard must name at least two labels"},
        {R"({"allow_runs": "sandbox"})", "p.json: /allow_runs: \"sandbox\": must be \"cage\" (allowed commands run in the read-only cage) or \"bare\""},
        {R"({"allow_runs": true})", "p.json: /allow_runs: true: must be \"cage\""},
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
                           "a-b.c_d.example.org", "{npm_registry}", "localhost:1", "192.0.2.10",
                           "192.0.2.10:8443", "[2001:db8::1]", "[2001:db8::1]:443"})
        CHECK(toolcage::check_allow_entry(ok).empty());
}

// A policy's relay.allow and the relay's --allow are read by one parser: what one accepts the
// other does, except that a policy writes host names in lowercase.
TEST_CASE("policy allowlist entries follow the relay's grammar") {
    for (const char* e : {"pypi.org", "pypi.org.", "x.org:0443", "x.org:", "*.org", "**.x.org",
                          "a.*.org", "[2001:DB8::1]", "[2001:db8::01]:443", "2001:db8::1", "127.1",
                          "0x7f.0.0.1", "1.2.3.4.5", "[fe80::1%eth0]", "user@x.org", "x.org/path",
                          "-x.org", "x_y.org", "Registry.NPMJS.org", "", "[::1", "[::1]x"}) {
        INFO(e);
        std::string problem;
        const bool relay_reads = toolcage::read_allow_entry(e, problem).has_value();
        const std::string schema = toolcage::check_allow_entry(e);
        const bool upper = std::string_view(e).find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
                           std::string_view::npos;
        CHECK(schema.empty() == (relay_reads && !upper));
        if (!relay_reads) CHECK(schema == problem);
    }
    CHECK(toolcage::check_allow_entry("[2001:DB8::1]").find("canonical form: [2001:db8::1]") !=
          std::string::npos);
}

TEST_CASE("a full document converts to the model") {
    auto doc = json::parse(R"({"name": "t", "on_cage": "deny", "overrides": {"git.reset-hard": "ask"},
        "rules": [{"id": "t.docker", "program": "docker", "args": ["run"], "paths": ["home"], "verdict": "ask", "reason": "r"}],
        "cage": {"write": ["{workspace}"], "min_abi": 4, "limits": {"nproc": 64}},
        "relay": {"enabled": true, "allow": ["pypi.org", "api.anthropic.com"],
                  "credentialed": ["api.anthropic.com"]}})");
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
    CHECK(p.relay.allow == std::vector<std::string>{"pypi.org", "api.anthropic.com"});
    CHECK(p.relay.credentialed == std::vector<std::string>{"api.anthropic.com"});
    CHECK(toolcage::policy_to_json(p)["relay"]["credentialed"] == json::array({"api.anthropic.com"}));
    CHECK(p.allow_runs == "cage");
    CHECK(toolcage::policy_from_json(json::parse(R"({"allow_runs": "bare"})"), "b.json").allow_runs == "bare");
}

TEST_CASE("hermes: other_tools and allow_tools are checked and read") {
    CHECK(error_of(R"({"hermes": {"other_tools": "cage"}})").starts_with("p.json: /hermes/other_tools: \"cage\": no cage reaches"));
    CHECK(error_of(R"({"hermes": {"other_tools": "maybe"}})").starts_with("p.json: /hermes/other_tools: \"maybe\": not a verdict"));
    CHECK(error_of(R"({"hermes": {"allow_tools": ["web search"]}})").starts_with("p.json: /hermes/allow_tools/0: "));
    CHECK(error_of(R"({"hermes": {"allow": []}})").starts_with("p.json: /hermes/allow: unknown field"));
    CHECK(error_of(R"({"hermes": {"other_tools": "deny", "allow_tools": ["mcp_github_list", "todo"]}})").empty());
    auto p = toolcage::policy_from_json(json::parse(R"({"hermes": {"other_tools": "deny", "allow_tools": ["todo"]}})"), "p.json");
    CHECK(p.hermes.other_tools == toolcage::Decision::deny);
    CHECK(p.hermes.allow_tools == std::vector<std::string>{"todo"});
    CHECK(toolcage::policy_from_json(json::parse("{}"), "p.json").hermes.other_tools == toolcage::Decision::ask);
}

TEST_CASE("hermes: each channel into later sessions is a verdict, ask by default, never cage") {
    for (const char* key : {"memory", "user_profile", "skills", "context_files", "cron_prompts"}) {
        INFO(key);
        const std::string k(key);
        CHECK(error_of(R"({"hermes": {")" + k + R"(": "cage"}})").starts_with("p.json: /hermes/" + k + ": \"cage\": no cage reaches"));
        CHECK(error_of(R"({"hermes": {")" + k + R"(": 1}})").starts_with("p.json: /hermes/" + k + ": "));
        CHECK(error_of(R"({"hermes": {")" + k + R"(": "deny"}})").empty());
        auto p = toolcage::policy_from_json(json::parse(R"({"hermes": {")" + k + R"(": "allow"}})"), "p.json");
        CHECK(p.hermes.channels.at(k) == toolcage::Decision::allow);
        CHECK(toolcage::policy_to_json(p)["hermes"][k] == "allow");
        CHECK(toolcage::policy_from_json(json::parse("{}"), "p.json").hermes.channels.at(k) == toolcage::Decision::ask);
    }
    CHECK(error_of(R"({"hermes": {"memories": "ask"}})").starts_with("p.json: /hermes/memories: unknown field"));
}

TEST_CASE("work roots: a home, /, a shared or system directory, a dot-directory are refused with the fix") {
    for (const char* bad : {R"("~")", R"("~/")", R"("~/.claude")", R"("~/.local/share")", R"("/")", R"("/tmp")",
                            R"("/usr/local/src")", R"("/etc/x")", R"("/home/u")", R"("/srv/.x/y")", R"("work")",
                            R"("~/a/../../b")", R"("")"}) {
        INFO(bad);
        const std::string e = error_of(std::string(R"({"workspace": {"roots": [)") + bad + "]}}");
        CHECK(e.starts_with("p.json: /workspace/roots/0: "));
        CHECK(e.find("\"~/work\"") != std::string::npos);
    }
    CHECK(error_of(R"({"workspace": {"root": ["~/work"]}})").starts_with("p.json: /workspace/root: unknown field"));
    CHECK(error_of(R"({"workspace": {"roots": "~/work"}})").starts_with("p.json: /workspace/roots: "));
    CHECK(error_of(R"({"workspace": {"roots": ["~/work", "~/src", "/srv/agents", "/tmp/agents"]}})").empty());
    auto p = toolcage::policy_from_json(json::parse(R"({"workspace": {"roots": ["~/work"]}})"), "p.json");
    CHECK(p.workspace.roots == std::vector<std::string>{"~/work"});
    CHECK(toolcage::policy_to_json(p)["workspace"]["roots"] == json::array({"~/work"}));
}
