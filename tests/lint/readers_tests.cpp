// Reading OpenShell policies, provider profiles and agent env files: the shapes OpenShell's
// documentation uses, and errors that name the file, the field and the fix.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "common/error.h"
#include "lint/agent_env_file.h"
#include "lint/credential_hosts.h"
#include "lint/openshell_policy_file.h"
#include "lint/providers_file.h"
#include "tests/hook/run_binary.h"
#include "tests/lint/lint_test_helpers.h"

using namespace toolcage::lint;
using toolcage::lint::test::error_of;
using toolcage::lint::test::has;

namespace {
const std::string kFixtures = TOOLCAGE_LINT_FIXTURES;

}  // namespace

TEST_CASE("an OpenShell policy file is read rule by rule, endpoint by endpoint") {
    OpenShellPolicy p = read_openshell_policy_file(kFixtures + "/sandbox_github.yaml");
    REQUIRE(p.rules.size() == 1);
    const NetworkRule& r = p.rules[0];
    CHECK(r.key == "github");
    REQUIRE(r.endpoints.size() == 2);
    CHECK(r.endpoints[0].host == "api.github.com");
    CHECK(r.endpoints[0].ports == std::vector<std::uint32_t>{443});
    CHECK(r.endpoints[0].protocol == "rest");
    CHECK(r.endpoints[0].access == "read-only");
    CHECK(r.endpoints[0].enforcement == "enforce");
    CHECK(r.endpoints[0].field == "network_policies.github.endpoints[0]");
    CHECK(r.binaries == std::vector<std::string>{"/usr/bin/git", "/usr/bin/gh"});

    OpenShellPolicy opaque = read_openshell_policy_file(kFixtures + "/sandbox_github_opaque.yaml");
    REQUIRE(opaque.rules.size() == 1);
    CHECK(opaque.rules[0].name == "downloads");  // the key, when no name is given
    CHECK(opaque.rules[0].endpoints[0].host == "*.github.com");
    CHECK(opaque.rules[0].endpoints[0].tls == "skip");
}

TEST_CASE("`openshell policy get --full` output is read past its revision header") {
    OpenShellPolicy p = parse_openshell_policy(
        "Version:      3\nHash:         ab12\nStatus:       Failed\nActive:       2\n"
        "Error:        network endpoint ambiguity: a: b\n---\nversion: 1\nnetwork_policies:\n"
        "  pypi:\n    endpoints:\n      - {host: pypi.org, port: 443}\n    binaries: [{path: /usr/bin/pip3}]\n",
        "full.yaml");
    REQUIRE(p.rules.size() == 1);
    CHECK(p.rules[0].endpoints[0].host == "pypi.org");
}

TEST_CASE("an unreadable OpenShell policy is an error naming the file and the fix") {
    std::string e = error_of([] { read_openshell_policy_file("/nonexistent/sandbox.yaml"); });
    CHECK(e.find("/nonexistent/sandbox.yaml") != std::string::npos);
    CHECK(e.find("No such file") != std::string::npos);
    CHECK(e.find("check the path") != std::string::npos);

    // A file this user may not read (root reads anything, so only as another user).
    if (::geteuid() != 0) {
        toolcage::test::TempDir dir;
        toolcage::test::write_file(dir / "locked.yaml", "version: 1\n");
        ::chmod((dir / "locked.yaml").c_str(), 0);
        std::string locked = error_of([&] { read_openshell_policy_file(dir / "locked.yaml"); });
        CHECK(locked.find("locked.yaml") != std::string::npos);
        CHECK(locked.find("Permission denied") != std::string::npos);
    }
}

TEST_CASE("bad YAML is an error naming the file, the line and the fix") {
    std::string e = error_of([] { read_openshell_policy_file(kFixtures + "/bad.yaml"); });
    CHECK(e.find("bad.yaml") != std::string::npos);
    CHECK(e.find("line ") != std::string::npos);
    CHECK(e.find("not valid YAML") != std::string::npos);
    CHECK(e.find("fix the YAML") != std::string::npos);
}

TEST_CASE("YAML streams: one document is read, several or none refused, garbage never hangs") {
    std::string e = error_of([] {
        parse_openshell_policy(
            "# two documents\nversion: 1\nnetwork_policies:\n  a:\n    endpoints: [{host: a.example.com, port: 443}]\n"
            "---\nversion: 1\nnetwork_policies:\n  b:\n    endpoints: [{host: b.example.com, port: 443}]\n...\n",
            "two.yaml");
    });
    CHECK(e.starts_with("two.yaml: "));
    CHECK(e.find("2 YAML documents; OpenShell reads exactly one") != std::string::npos);
    // yaml-cpp 0.7's LoadAll loops forever on this one (found by fuzz/lint).
    e = error_of([] { parse_openshell_policy(",`", "f.yaml"); });
    CHECK(e.starts_with("f.yaml: line 1"));
    CHECK(e.find("not valid YAML") != std::string::npos);
    e = error_of([] { parse_openshell_policy("version: 1\n---\nkey: [unclosed\n", "f.yaml"); });
    CHECK(e.starts_with("f.yaml: line 4, column "));  // the second document ends unclosed
    e = error_of([] { parse_openshell_policy("# only a comment\n\n", "f.yaml"); });
    CHECK(e.find("f.yaml: the OpenShell policy is empty") == 0);
}

TEST_CASE("OpenShell policy fields of the wrong shape are errors naming the field") {
    struct Case {
        const char* yaml;
        const char* field;
        const char* fix;
    };
    const Case cases[] = {
        {"network_policies: [a, b]\n", "network_policies", "my_rule"},
        {"network_policies:\n  x:\n    endpoints:\n      - host: a.example.com\n",
         "network_policies.x.endpoints[0]", "port: 443"},
        {"network_policies:\n  x:\n    endpoints:\n      - host: a.example.com\n        port: 70000\n",
         "network_policies.x.endpoints[0].port", "1 to 65535"},
        {"network_policies:\n  x:\n    endpoints:\n      - host: [a]\n        port: 443\n",
         "network_policies.x.endpoints[0].host", "host: VALUE"},
        {"network_policies:\n  x:\n    endpoints: []\n    binaries: /usr/bin/curl\n",
         "network_policies.x.binaries", "- path:"},
        {"network_policies:\n  x:\n    endpoints:\n      - {host: a.example.com, port: 443, "
         "allow_uninspected_credentials: maybe}\n",
         "allow_uninspected_credentials", "true or false"},
    };
    for (const auto& c : cases) {
        INFO(c.yaml);
        std::string e = error_of([&] { parse_openshell_policy(std::string("version: 1\n") + c.yaml, "sandbox.yaml"); });
        CHECK(e.starts_with("sandbox.yaml: "));
        CHECK(e.find(c.field) != std::string::npos);
        CHECK(e.find(c.fix) != std::string::npos);
    }
}

TEST_CASE("provider profiles are read alone, as a list, and with their credentials' variables") {
    auto one = read_providers_file(kFixtures + "/provider_claude_code.yaml");
    REQUIRE(one.size() == 1);
    CHECK(one[0].id == "claude-code");
    CHECK(one[0].env_vars == std::vector<std::string>{"ANTHROPIC_API_KEY", "CLAUDE_API_KEY"});
    REQUIRE(one[0].endpoints.size() == 1);
    CHECK(one[0].endpoints[0].host == "api.anthropic.com");
    CHECK(one[0].endpoints[0].protocol == "rest");

    auto list = read_providers_file(kFixtures + "/providers_list.yaml");
    REQUIRE(list.size() == 2);
    CHECK(list[0].id == "github");
    CHECK(list[0].endpoints.size() == 2);
    CHECK(list[0].endpoints[1].field == "[0].endpoints[1]");
    CHECK(list[1].id == "pypi");
    CHECK(list[1].env_vars.empty());  // no credentials: binds nothing

    // JSON (list-profiles -o json) is YAML too.
    auto json = parse_providers(
        R"([{"id": "nvidia", "credentials": [{"name": "api_key", "env_vars": ["NVIDIA_API_KEY"]}],
            "endpoints": [{"host": "integrate.api.nvidia.com", "port": 443, "protocol": "rest"}]}])",
        "profiles.json");
    REQUIRE(json.size() == 1);
    CHECK(json[0].endpoints[0].host == "integrate.api.nvidia.com");

    std::string e = error_of([] { parse_providers("- display_name: GitHub\n", "p.yaml"); });
    CHECK(e.find("p.yaml: [0].id: missing") != std::string::npos);
}

TEST_CASE("an agent env file gives the variables it sets, never a secret's value") {
    auto vars = read_agent_env_file(kFixtures + "/hermes.env");
    std::vector<std::string> names;
    for (const auto& v : vars) {
        names.push_back(v.name);
        CHECK(v.value.empty());  // none of these is a base URL
    }
    CHECK(names == std::vector<std::string>{"OPENROUTER_API_KEY", "ANTHROPIC_API_KEY",
                                            "TELEGRAM_BOT_TOKEN", "TELEGRAM_ALLOWED_USERS",
                                            "FIRECRAWL_API_KEY", "BROWSERBASE_PROXIES",
                                            "TERMINAL_TIMEOUT", "TERMINAL_LIFETIME_SECONDS",
                                            "SLACK_BOT_TOKEN"});
    CHECK(vars[2].line == 4);

    auto multi = parse_agent_env(
        "KEY=\"line one\nline two\"\nOPENAI_BASE_URL=https://proxy.example.com/v1 # mine\nB=\n", "x.env");
    REQUIRE(multi.size() == 2);
    CHECK(multi[0].name == "KEY");
    CHECK(multi[1].name == "OPENAI_BASE_URL");
    CHECK(multi[1].value == "https://proxy.example.com/v1");
    CHECK(multi[1].line == 3);

    std::string e = error_of([] { parse_agent_env("A=1\nthis is not an assignment\n", "hermes.env"); });
    CHECK(e == "hermes.env: line 2: not a KEY=VALUE assignment; write `KEY=VALUE` (or comment the line "
               "out with #)");
    e = error_of([] { parse_agent_env("A=\"never closed\n", "hermes.env"); });
    CHECK(e.find("hermes.env: line 1 (A): the quoted value never ends") != std::string::npos);
    e = error_of([] { read_agent_env_file("/nonexistent/.env"); });
    CHECK(e.find("/nonexistent/.env") != std::string::npos);
}

TEST_CASE("the credential table is sorted and names each key's hosts with a reason") {
    auto table = credential_variables();
    REQUIRE(table.size() > 30);
    for (const auto& v : table) {
        INFO(v.name);
        CHECK(!v.reason.empty());
        CHECK(find_credential_variable(v.name) == &v);
    }
    CHECK(find_credential_variable("OPENROUTER_API_KEY")->hosts == "openrouter.ai");
    CHECK(find_credential_variable("TELEGRAM_BOT_TOKEN")->hosts == "api.telegram.org");
    CHECK(find_credential_variable("GITHUB_TOKEN")->hosts == "api.github.com github.com");
    CHECK(find_credential_variable("NVIDIA_API_KEY")->hosts == "integrate.api.nvidia.com");
    CHECK(find_credential_variable("TERMINAL_TIMEOUT") == nullptr);
    CHECK(looks_like_credential("ACME_API_KEY"));
    CHECK(looks_like_credential("MY_SERVICE_TOKEN"));
    CHECK_FALSE(looks_like_credential("TERMINAL_TIMEOUT"));
    CHECK_FALSE(looks_like_credential("TELEGRAM_ALLOWED_USERS"));
}
