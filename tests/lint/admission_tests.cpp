// The lint reads as OpenShell's policy reader and admission read: each input OpenShell refuses is
// an error naming the file, the field and the reason; what it accepts, the lint accepts too.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "common/error.h"
#include "lint/endpoint_shape.h"
#include "lint/lint.h"
#include "lint/openshell_policy_file.h"
#include "tests/hook/run_binary.h"
#include "tests/lint/lint_test_helpers.h"

using namespace toolcage::lint;
using toolcage::lint::test::error_of;
using toolcage::lint::test::has;
using toolcage::test::TempDir;
using toolcage::test::write_file;

namespace {
const std::string kFixtures = TOOLCAGE_LINT_FIXTURES;



std::string policy(const std::string& endpoint, const std::string& binaries = "[{path: /usr/bin/curl}]") {
    return "version: 1\nnetwork_policies:\n  r:\n    endpoints:\n      - " + endpoint + "\n    binaries: " +
           binaries + "\n";
}

Findings lint_of(const std::vector<std::string>& texts) {
    LintInput in;
    for (std::size_t i = 0; i < texts.size(); ++i)
        in.openshell.push_back(parse_openshell_policy(texts[i], "p" + std::to_string(i) + ".yaml"));
    return run_lint(in);
}

std::size_t count(const Findings& fs, const char* rule) {
    return static_cast<std::size_t>(std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == rule; }));
}
}  // namespace

TEST_CASE("files OpenShell cannot take are refused by name and reason, never read blindly") {
    TempDir dir;
    struct Case {
        std::string path;
        const char* reason;
    };
    write_file(dir / "empty.yaml", "");
    write_file(dir / "comments.yaml", "# nothing but a comment\n\n  # and another\n");
    write_file(dir / "big.yaml", "version: 1\n#" + std::string(300'000, 'x') + "\n");
    ::mkfifo((dir / "fifo.yaml").c_str(), 0600);
    const Case cases[] = {
        {dir / "empty.yaml", "is empty"},
        {dir / "comments.yaml", "is empty"},
        {dir.path(), "not a regular file (a directory)"},
        {"/dev/zero", "not a regular file (a character device)"},
        {dir / "fifo.yaml", "not a regular file (a FIFO)"},  // opened without blocking: no hang
        {dir / "big.yaml", "OpenShell refuses a policy over 256 KiB"},
        {kFixtures + "/crlf_two_documents.yaml", "2 YAML documents"},  // the second is not dropped
    };
    for (const auto& c : cases) {
        INFO(c.path);
        std::string e = error_of([&] { read_openshell_policy_file(c.path); });
        CHECK(e.starts_with(c.path + ": "));
        CHECK(has(e, c.reason));
    }
}

TEST_CASE("fields OpenShell's reader refuses are refused with the field named") {
    struct Case {
        std::string yaml;
        const char* field;
        const char* reason;
    };
    const Case cases[] = {
        {policy("{host: pypi.org, port: 443, tsl: skip}"), "endpoints[0].tsl", "did you mean `tls`?"},
        {"version: 1\nnetwork_polices: {}\n", "network_polices", "unknown field"},
        {"version: 1\nnetwork_policies:\n  r:\n    hosts: []\n", "network_policies.r.hosts", "unknown field"},
        {"network_policies: {}\n", "version", "missing"},
        {"version: \"1\"\nnetwork_policies: {}\n", "version", "quoted"},
        {"version: one\n", "version", "not a whole number"},
        {"version: 1.0\n", "version", "not a whole number"},
        {policy("{host: pypi.org, port: \"443\"}"), "endpoints[0].port", "written as a string"},
        {policy("{host: pypi.org, ports: [443, \"8443\"]}"), "ports[1]", "written as a string"},
        {policy("{host: pypi.org, port: 0}"), "endpoints[0]", "no port"},
        {policy("{host: pypi.org, port: 0443}"), "endpoints[0].port", "is not a port"},  // a string to serde_yml
        {policy("{host: pypi.org, port: 0x10000}"), "endpoints[0].port", "is not a port"},
        {policy("{host: pypi.org, port: 0x+1bb}"), "endpoints[0].port", "is not a port"},
        {policy("{host: pypi.org, port: 4_43}"), "endpoints[0].port", "is not a port"},
        {policy("{host: pypi.org, ports: [0]}"), "endpoints[0]", "outside 1..65535"},
        {policy("{host: pypi.org, port: 443}", "[/usr/bin/curl]"), "binaries[0]", "plain string is refused"},
        {policy("{host: pypi.org, port: 443}", "[{path: /usr/bin/curl, sha: x}]"), "binaries[0].sha", "unknown field"},
        {policy("{host: \"*.com\", port: 443}"), "endpoints[0].host", "whole top-level domain"},
        {policy("{host: \"**.com\", port: 443}"), "endpoints[0].host", "whole top-level domain"},
        {policy("{host: \"*\", port: 443}"), "endpoints[0].host", "every host"},
        {policy("{host: \"api.*x.example.com\", port: 443}"), "endpoints[0].host", "later label"},
        {policy("{host: \"a**.example.com\", port: 443}"), "endpoints[0].host", "first label"},
        {policy("{host: \"api\\0.example.com\", port: 443}"), "endpoints[0].host", "control character"},
        {policy("{port: 443}"), "endpoints[0]", "no host"},
        {policy("{host: 10.0.0.1, port: 6379, protocol: tcp}"), "endpoints[0].host", "IP address"},
        {policy("{host: a.example.com, port: 443, protocol: rest}"), "endpoints[0]", "allows nothing"},
        {policy("{host: a.example.com, port: 443, protocol: ftp}"), "endpoints[0]", "unknown protocol"},
        {policy("{host: a.example.com, port: 443, path: v1}"), "endpoints[0]", "must start with '/'"},
        {policy("{host: a.example.com, port: 443, credential_signing: sigv5}"), "endpoints[0]", "sigv4"},
        {policy("{host: g.example.com, port: 443, protocol: graphql, rules: [{allow: {operation_name: q}}]}"),
         "endpoints[0]", "rules[0].allow.operation_type missing"},
        {policy("{host: g.example.com, port: 443, protocol: graphql, access: full, deny_rules: [{operation_type: delete}]}"),
         "endpoints[0]", "deny_rules[0].operation_type \"delete\""},
        {policy("{host: g.example.com, port: 443, protocol: graphql, access: read-only, "
                "graphql_persisted_queries: {q1: {operation_name: x}}}"),
         "endpoints[0]", "graphql_persisted_queries[q1].operation_type missing"},
        {policy("{host: a.example.com, port: 443, credential_signing: sigv4}"), "endpoints[0]", "signing_service"},
        {policy("{host: a.example.com, port: 443, allow_encoded_slash: yes}"), "allow_encoded_slash", "true or false"},
        {policy("{host: a.example.com, port: 443, credential_binding: {}}"), "credential_binding.provider", "missing"},
        {"version: 1\nnetwork_middlewares:\n  m:\n    middleware: guard\n", "network_middlewares.m.endpoints", "missing"},
        {"version: 1\nnetwork_middlewares:\n  a: {middleware: g, endpoints: {include: [a.example.com]}}\n"
         "  b: {middleware: g, endpoints: {include: [b.example.com]}}\n",
         "network_middlewares.b.order", "also a's"},
        {"version: 1\nnetwork_middlewares:\n  m:\n    middleware: guard\n    on_error: ignore\n    endpoints: {include: [a.example.com]}\n",
         "on_error", "fail_closed or fail_open"},
        {std::string("version: 1\0\n", 12), "", "NUL byte"},
        {"version: 1\nprocess: {run_as_user: root}\n", "process.run_as_user", "neither `sandbox`"},
        {"version: 1\nprocess: {run_as_group: 0}\n", "process.run_as_group", "neither `sandbox`"},
        {"version: 1\nprocess: {run_as_user: 4294967295}\n", "process.run_as_user", "neither `sandbox`"},
        {"version: 1\nfilesystem_policy: {read_only: [usr/lib]}\n", "filesystem_policy.read_only[0]", "relative path"},
        {"version: 1\nfilesystem_policy: {read_only: [/usr/../etc]}\n", "read_only[0]", "climbs with `..`"},
        {"version: 1\nfilesystem_policy: {read_write: [/tmp, //]}\n", "filesystem_policy.read_write[1]", "whole filesystem"},
    };
    for (const auto& c : cases) {
        INFO(c.yaml);
        std::string e = error_of([&] { parse_openshell_policy(c.yaml, "sandbox.yaml"); });
        CHECK(e.starts_with("sandbox.yaml: "));
        CHECK(has(e, c.field));
        CHECK(has(e, c.reason));
    }
}

TEST_CASE("OpenShell's middleware limits: at most 10 middlewares, 32 host patterns each") {
    auto middlewares = [](int n, int patterns) {
        std::string y = "version: 1\nnetwork_middlewares:\n";
        for (int i = 0; i < n; ++i) {
            y += "  m" + std::to_string(i) + ": {middleware: g, order: " + std::to_string(i) + ", endpoints: {include: [";
            for (int p = 0; p < patterns; ++p) y += (p ? ", " : "") + std::string("h") + std::to_string(p) + ".example.com";
            y += "]}}\n";
        }
        return y;
    };
    CHECK_NOTHROW(parse_openshell_policy(middlewares(10, 32), "ok.yaml"));
    CHECK(has(error_of([&] { parse_openshell_policy(middlewares(11, 1), "many.yaml"); }), "at most 10"));
    CHECK(has(error_of([&] { parse_openshell_policy(middlewares(1, 33), "wide.yaml"); }), "at most 32"));
}

TEST_CASE("what OpenShell accepts the lint accepts: version 2, port with ports, distinct globbed paths") {
    OpenShellPolicy p = parse_openshell_policy(
        "version: 2\nnetwork_policies:\n  r:\n    endpoints:\n      - {host: a.example.com, port: 80, ports: [443, 8443]}\n",
        "v2.yaml");
    CHECK(p.rules[0].endpoints[0].ports == std::vector<std::uint32_t>{443, 8443});  // ports wins
    // Integers as serde_yml reads them: a '+', and 0x, 0o, 0b radixes.
    OpenShellPolicy radix = parse_openshell_policy(
        "version: 0x1\nnetwork_policies:\n  r:\n    endpoints:\n      - {host: a.example.com, ports: [0x1BB, +8443, 0o120, 0b1010000, 0x0b1]}\n",
        "radix.yaml");
    CHECK(radix.rules[0].endpoints[0].ports == std::vector<std::uint32_t>{443, 8443, 80, 80, 177});
    // The agent's identity and paths as OpenShell accepts them; `/` read-only is fine.
    CHECK_NOTHROW(parse_openshell_policy("version: 1\nprocess: {run_as_user: sandbox, run_as_group: 1000}\n"
                                         "filesystem_policy: {read_only: [/, /usr/lib/..x], read_write: [/sandbox]}\n",
                                         "ok.yaml"));
    Findings fs = lint_of({policy("{host: a.example.com, port: 443, path: \"/v1/*\", protocol: rest, access: read-only}"),
                           policy("{host: a.example.com, port: 443, path: \"/v2/*\", protocol: websocket, access: full}")});
    CHECK(count(fs, kAmbiguity) == 0);
    CHECK_FALSE(path_patterns_overlap("/v1/*", "/v2/*"));
    CHECK(path_patterns_overlap("/v1/*", "/v1/models"));
    CHECK(path_patterns_overlap("/v[12]/x", "/v2/*"));
    CHECK_FALSE(path_patterns_overlap("/v[!2]/x", "/v2/x"));
    CHECK(path_patterns_overlap("/api/**", "/api/v1/x"));
}

TEST_CASE("the lint compares every field OpenShell's ambiguity check compares") {
    const std::string base = "host: a.example.com, port: 443, protocol: rest, access: full";
    struct Case {
        std::string a, b;
        const char* field;
    };
    const Case cases[] = {
        {"{" + base + "}", "{" + base + ", tls: skip}", "tls="},
        {"{host: a.example.com, port: 443}", "{host: a.example.com, port: 443, protocol: tcp}", "transparent_tcp_eligible="},
        {"{" + base + ", allowed_ips: [10.0.0.0/8]}", "{" + base + "}", "allowed_ips="},
        {"{" + base + "}", "{" + base + ", enforcement: enforce}", "enforcement="},
        {"{" + base + "}", "{" + base + ", allow_encoded_slash: true}", "allow_encoded_slash="},
        {"{" + base + "}", "{" + base + ", websocket_credential_rewrite: true}", "websocket_credential_rewrite="},
        {"{" + base + "}", "{" + base + ", request_body_credential_rewrite: true}", "request_body_credential_rewrite="},
        {"{" + base + ", credential_signing: sigv4, signing_service: s3}",
         "{" + base + ", credential_signing: sigv4:body, signing_service: s3}", "credential_signing="},
        {"{" + base + ", credential_signing: sigv4, signing_service: s3}",
         "{" + base + ", credential_signing: sigv4, signing_service: sqs}", "signing_service="},
        {"{" + base + ", credential_signing: sigv4, signing_service: s3, signing_region: us-east-1}",
         "{" + base + ", credential_signing: sigv4, signing_service: s3, signing_region: eu-west-1}", "signing_region="},
        {"{" + base + ", credential_binding: {provider: a}}", "{" + base + ", credential_binding: {provider: b}}",
         "credential_binding.provider="},
        {"{host: a.example.com, port: 443, protocol: mcp, mcp: {allow_all_known_mcp_methods: true}}",
         "{host: a.example.com, port: 443, protocol: mcp, mcp: {allow_all_known_mcp_methods: true, strict_tool_names: false}}",
         "mcp.strict_tool_names="},
        {"{host: a.example.com, port: 443, protocol: mcp, mcp: {allow_all_known_mcp_methods: true}}",
         "{host: a.example.com, port: 443, protocol: mcp, mcp: {allow_all_known_mcp_methods: true, max_body_bytes: 9}}",
         "json_rpc_max_body_bytes="},
        {"{host: a.example.com, port: 443, protocol: json-rpc, rules: [{allow: {method: x}}]}",
         "{host: a.example.com, port: 443, protocol: json-rpc, rules: [{allow: {method: x}}], json_rpc: {max_body_bytes: 9}}",
         "json_rpc_max_body_bytes="},
        {"{host: a.example.com, port: 443, protocol: graphql, rules: [{allow: {operation_type: query}}]}",
         "{host: a.example.com, port: 443, protocol: graphql, rules: [{allow: {operation_type: query}}], graphql_max_body_bytes: 9}",
         "graphql_max_body_bytes="},
        {"{host: a.example.com, port: 443, protocol: websocket, access: full}",
         "{host: a.example.com, port: 443, protocol: websocket, access: full, persisted_queries: allow_registered}",
         "websocket_graphql_policy="},
    };
    for (const auto& c : cases) {
        INFO(c.a + "\n" + c.b);
        Findings fs = lint_of({policy(c.a), policy(c.b)});
        REQUIRE(count(fs, kAmbiguity) == 1);
        CHECK(has(fs.front().message, c.field));
        // The same pair on another port is no conflict.
        std::string b = c.b;
        b.replace(b.find("port: 443"), 9, "port: 8443");
        CHECK(count(lint_of({policy(c.a), policy(b)}), kAmbiguity) == 0);
    }
    // One label for `*`, any depth for `**`, as OpenShell matches hosts.
    CHECK(count(lint_of({policy("{host: \"*.example.com\", port: 443, tls: skip}"),
                         policy("{host: a.b.example.com, port: 443}")}),
                kAmbiguity) == 0);
    CHECK(count(lint_of({policy("{host: \"**.example.com\", port: 443, tls: skip}"),
                         policy("{host: a.b.example.com, port: 443}")}),
                kAmbiguity) == 1);
}

TEST_CASE("a fail-closed middleware refuses every tls: skip endpoint it selects") {
    OpenShellPolicy mw = read_openshell_policy_file(kFixtures + "/stock_middleware.yaml");
    LintInput in;
    in.openshell = {mw, parse_openshell_policy(policy("{host: registry.npmjs.org, port: 443, tls: skip}") , "relay.yaml"),
                    parse_openshell_policy(policy("{host: files.pythonhosted.org, port: 443, tls: skip}"), "py.yaml"),
                    parse_openshell_policy(policy("{host: example.org, port: 443, tls: skip}"), "other.yaml")};
    Findings fs = run_lint(in);
    REQUIRE(count(fs, kMiddlewareTlsSkip) == 2);
    CHECK(fs[0].file == "relay.yaml");
    CHECK(has(fs[0].message, "content_guard"));
    // fail_open: allowed, as by OpenShell.
    in.openshell[0].middlewares[0].on_error = "fail_open";
    CHECK(count(run_lint(in), kMiddlewareTlsSkip) == 0);
}

TEST_CASE("uninspected credentialed endpoints from provider layers are found once each") {
    OpenShellPolicy full = read_openshell_policy_file(kFixtures + "/stock_full_with_provider.yaml");
    LintInput in;
    in.openshell = {full, parse_openshell_policy(policy("{host: github.com, port: 443, tls: skip}"), "skip.yaml"),
                    parse_openshell_policy(policy("{host: api.github.com, port: 443}"), "l4.yaml"),
                    parse_openshell_policy(policy("{host: api.github.com, port: 443, protocol: tcp}"), "tcp.yaml")};
    Findings fs = run_lint(in);
    // tls: skip and L4-only are refused; protocol tcp is a protocol to OpenShell's rule.
    REQUIRE(count(fs, kUninspectedCredential) == 2);
    // The same provider given as its profile too: still once each.
    ProviderProfile profile;
    profile.id = "github";
    profile.env_vars = {"GITHUB_TOKEN"};
    profile.endpoints = full.rules[0].key == "_provider_github" ? full.rules[0].endpoints : full.rules[1].endpoints;
    profile.file = "github.yaml";
    in.providers = {profile};
    CHECK(count(run_lint(in), kUninspectedCredential) == 2);
}
