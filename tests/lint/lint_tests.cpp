// The lint's rules on plain inputs: credential hosts on relay.allow, relay.credentialed, shapes
// that OpenShell refuses as ambiguous, and what a generated relay policy must never do.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>

#include "common/policy.h"
#include "lint/lint.h"
#include "relay/openshell_policy.h"
#include "tests/hook/run_binary.h"

using namespace toolcage::lint;

namespace {
const std::string kFixtures = TOOLCAGE_LINT_FIXTURES;
const std::string kRelay = "/usr/local/bin/toolcage-relay";

// A policy's relay lists as the lint receives them, with the relay's generated policy.
LintInput input(const std::vector<std::string>& allow,
                const std::vector<std::string>& credentialed = {}) {
    LintInput in;
    in.policy_name = "p";
    for (std::size_t i = 0; i < allow.size(); ++i)
        in.allow.push_back({allow[i], "p.json", "/relay/allow/" + std::to_string(i)});
    for (std::size_t i = 0; i < credentialed.size(); ++i)
        in.credentialed.push_back(
            {credentialed[i], "p.json", "/relay/credentialed/" + std::to_string(i)});
    toolcage::Policy p;
    p.name = "p";
    p.relay.allow = allow;
    p.relay.credentialed = credentialed;
    in.generated =
        parse_openshell_policy(toolcage::relay::openshell_policy_yaml(p, kRelay), "<generated>");
    in.relay_binary = kRelay;
    return in;
}

EnvFile env(const std::string& text) {
    return {"hermes.env", parse_agent_env(text, "hermes.env")};
}

std::vector<const Finding*> of_rule(const Findings& fs, const char* rule) {
    std::vector<const Finding*> out;
    for (const auto& f : fs)
        if (f.rule == rule) out.push_back(&f);
    return out;
}
}  // namespace

TEST_CASE("a relay entry toward a credential-bound host is flagged, with the fix named") {
    LintInput in = input({"pypi.org", "github.com", "api.telegram.org"});
    in.env_files.push_back(env("GITHUB_TOKEN=ghp_x\nTELEGRAM_BOT_TOKEN=1:AA\n"));
    Findings fs = run_lint(in);
    auto hosts = of_rule(fs, kCredentialHost);
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0]->file == "p.json");
    CHECK(hosts[0]->field == "/relay/allow/1");
    CHECK(hosts[0]->message.find("GITHUB_TOKEN in hermes.env line 1") != std::string::npos);
    CHECK(hosts[0]->fix.find("remove \"github.com\" from relay.allow") != std::string::npos);
    CHECK(hosts[0]->fix.find("add \"github.com\" to relay.credentialed") != std::string::npos);
    CHECK(hosts[1]->field == "/relay/allow/2");
    CHECK(hosts[1]->message.find("TELEGRAM_BOT_TOKEN") != std::string::npos);
    CHECK(failing(fs));
}

TEST_CASE("the same host declared in relay.credentialed passes") {
    LintInput in = input({"pypi.org", "api.anthropic.com"}, {"api.anthropic.com"});
    in.env_files.push_back(env("ANTHROPIC_API_KEY=sk-ant-x\n"));
    Findings fs = run_lint(in);
    CHECK(of_rule(fs, kCredentialHost).empty());
    CHECK(of_rule(fs, kUninspectedCredential).empty());  // generated inspected, not `tls: skip`
    CHECK_FALSE(failing(fs));

    // Declared, the relay's endpoint takes the inspected shape of OpenShell's provider profiles.
    REQUIRE(in.generated);
    const Endpoint& e = in.generated->rules[0].endpoints[1];
    CHECK(e.host == "api.anthropic.com");
    CHECK(e.tls.empty());
    CHECK(e.protocol == "rest");
    CHECK(e.enforcement == "enforce");
    CHECK(in.generated->rules[0].endpoints[0].tls.empty());  // stand-alone: OpenShell's default
}

TEST_CASE("wildcards match credential hosts both ways") {
    // The relay's *.github.com covers api.github.com, GitHub's credential host.
    LintInput wide = input({"*.github.com"});
    wide.env_files.push_back(env("GH_TOKEN=ghp_x\n"));
    CHECK(of_rule(run_lint(wide), kCredentialHost).size() == 1);
    // Declaring the one host that holds the key is enough.
    LintInput declared = input({"*.github.com"}, {"api.github.com"});
    declared.env_files.push_back(env("GH_TOKEN=ghp_x\n"));
    CHECK(of_rule(run_lint(declared), kCredentialHost).empty());
    // Slack's key goes to any *.slack.com host: hooks.slack.com is one.
    LintInput slack = input({"hooks.slack.com"});
    slack.env_files.push_back(env("SLACK_BOT_TOKEN=xoxb\n"));
    CHECK(of_rule(run_lint(slack), kCredentialHost).size() == 1);
    // Another port is another endpoint.
    LintInput port = input({"api.github.com:8443"});
    port.env_files.push_back(env("GITHUB_TOKEN=ghp_x\n"));
    CHECK(of_rule(run_lint(port), kCredentialHost).empty());
}

TEST_CASE("a base URL moves a key's host, and unknown secrets are notes") {
    LintInput in = input({"llm-proxy.example.com"});
    in.env_files.push_back(
        env("OPENAI_API_KEY=sk-x\nOPENAI_BASE_URL=https://llm-proxy.example.com/v1\n"
            "ACME_API_KEY=abc\n"));
    Findings fs = run_lint(in);
    auto hosts = of_rule(fs, kCredentialHost);
    REQUIRE(hosts.size() == 1);
    CHECK(hosts[0]->message.find("OPENAI_BASE_URL (line 2)") != std::string::npos);
    auto notes = of_rule(fs, kUnknownCredential);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0]->note);
    CHECK(notes[0]->field == "ACME_API_KEY");
}

TEST_CASE("provider profiles bind credentials to their endpoints") {
    LintInput in = input({"api.github.com", "pypi.org"});
    in.providers = read_providers_file(kFixtures + "/providers_list.yaml");
    Findings fs = run_lint(in);
    auto hosts = of_rule(fs, kCredentialHost);
    REQUIRE(hosts.size() == 1);  // pypi's profile has no credentials
    CHECK(hosts[0]->message.find("provider \"github\" (GITHUB_TOKEN, GH_TOKEN)") !=
          std::string::npos);
    // And OpenShell would refuse the relay's `tls: skip` endpoint bound to GitHub's token.
    auto refused = of_rule(fs, kUninspectedCredential);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->field == "network_policies.toolcage_relay_p.endpoints[0]");
    CHECK(refused[0]->message.find("allow_uninspected_credentials") != std::string::npos);
    // The stand-alone endpoint carries no request metadata, so it is not ambiguous beside the
    // profile's inspected one: the refusal above is the credential's.
    CHECK(of_rule(fs, kAmbiguity).empty());
}

TEST_CASE("two policies shaping one host differently are flagged") {
    LintInput in;
    in.openshell.push_back(read_openshell_policy_file(kFixtures + "/sandbox_github.yaml"));
    in.openshell.push_back(read_openshell_policy_file(kFixtures + "/sandbox_github_opaque.yaml"));
    Findings fs = run_lint(in);
    auto amb = of_rule(fs, kAmbiguity);
    REQUIRE(amb.size() == 1);  // *.github.com meets api.github.com; github.com is not under it
    CHECK(amb[0]->file == kFixtures + "/sandbox_github_opaque.yaml");
    CHECK(amb[0]->field == "network_policies.downloads.endpoints[0]");
    CHECK(amb[0]->message.find("sandbox_github.yaml at network_policies.github.endpoints[0]") !=
          std::string::npos);
    CHECK(amb[0]->message.find("tls=auto vs skip") != std::string::npos);
    CHECK(amb[0]->fix.find("same tls") != std::string::npos);

    // Shapes that agree are not ambiguous, nor are different hosts or ports.
    LintInput same;
    same.openshell.push_back(parse_openshell_policy(
        "version: 1\nnetwork_policies:\n  a:\n    endpoints: [{host: api.example.com, port: 443, "
        "protocol: rest, "
        "access: read-only, enforcement: enforce}]\n    binaries: [{path: /usr/bin/curl}]\n",
        "a.yaml"));
    same.openshell.push_back(
        parse_openshell_policy("version: 1\nnetwork_policies:\n  b:\n    endpoints:\n"
                               "      - {host: api.example.com, port: 443, protocol: rest, access: "
                               "full, enforcement: enforce}\n"
                               "      - {host: api.example.com, port: 8443, tls: skip}\n"
                               "      - {host: other.example.com, port: 443, tls: skip}\n"
                               "    binaries: [{path: /usr/bin/wget}]\n",
                               "b.yaml"));
    CHECK(run_lint(same).empty());

    // Protocol and enforcement count where both endpoints carry request metadata.
    LintInput enforcement;
    enforcement.openshell.push_back(
        parse_openshell_policy("version: 1\nnetwork_policies:\n  a:\n    endpoints: [{host: "
                               "api.example.com, port: 443, protocol: rest, "
                               "access: read-only, enforcement: enforce}]\n",
                               "a.yaml"));
    enforcement.openshell.push_back(
        parse_openshell_policy("version: 1\nnetwork_policies:\n  b:\n    endpoints: [{host: "
                               "api.example.com, port: 443, protocol: rest, "
                               "access: read-only, enforcement: audit}]\n",
                               "b.yaml"));
    Findings efs = run_lint(enforcement);
    auto e = of_rule(efs, kAmbiguity);
    REQUIRE(e.size() == 1);
    CHECK(e[0]->message.find("enforcement=enforce vs audit") != std::string::npos);
}

TEST_CASE("the stand-alone relay policy meets stock shapes without ambiguity, not a skipped host") {
    LintInput in =
        input({"pypi.org", "files.pythonhosted.org", "github.com", "*.githubusercontent.com"});
    // Every endpoint in OpenShell's default handling, wildcards as OpenShell's any-depth `**`.
    for (const auto& e : in.generated->rules[0].endpoints) CHECK(e.tls.empty());
    CHECK(in.generated->rules[0].endpoints[3].host == "**.githubusercontent.com");
    in.openshell.push_back(read_openshell_policy_file(kFixtures + "/stock_base.yaml"));
    in.openshell.push_back(read_openshell_policy_file(kFixtures + "/stock_npm_preset.yaml"));
    CHECK(of_rule(run_lint(in), kAmbiguity).empty());
    // A sandbox policy that skips TLS on a host is the case for --base.
    in.openshell = {read_openshell_policy_file(kFixtures + "/sandbox_pypi.yaml")};
    Findings fs = run_lint(in);
    auto amb = of_rule(fs, kAmbiguity);
    REQUIRE(amb.size() == 2);  // pypi.org and files.pythonhosted.org
    CHECK(amb[0]->message.find("\"pypi.org\" port 443") != std::string::npos);
    CHECK(amb[0]->fix.find("--base") != std::string::npos);
}

TEST_CASE("a generated relay policy may grant the relay binary only") {
    LintInput in = input({"pypi.org"});
    in.relay_binary = "/opt/toolcage/bin/toolcage-relay";  // generated for another path
    Findings fs = run_lint(in);
    auto foreign = of_rule(fs, kForeignBinary);
    REQUIRE(foreign.size() == 1);
    CHECK(foreign[0]->field == "network_policies.toolcage_relay_p.binaries[0]");

    LintInput none = input({"pypi.org"});
    none.generated->rules[0].binaries.clear();  // OpenShell: no binaries = every binary
    CHECK(of_rule(run_lint(none), kForeignBinary).size() == 1);
}

TEST_CASE("an uninspected credentialed endpoint without the opt-in is what OpenShell refuses") {
    LintInput in;
    in.providers = read_providers_file(kFixtures + "/provider_claude_code.yaml");
    in.openshell.push_back(
        parse_openshell_policy("version: 1\nnetwork_policies:\n  raw:\n    endpoints: [{host: "
                               "api.anthropic.com, port: 443, tls: skip}]\n"
                               "    binaries: [{path: /usr/bin/curl}]\n",
                               "raw.yaml"));
    Findings fs = run_lint(in);
    auto refused = of_rule(fs, kUninspectedCredential);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->file == "raw.yaml");

    LintInput opted;
    opted.providers = read_providers_file(kFixtures + "/provider_claude_code.yaml");
    opted.openshell.push_back(parse_openshell_policy(
        "version: 1\nnetwork_policies:\n  raw:\n    endpoints: [{host: api.anthropic.com, port: "
        "443, tls: skip, "
        "allow_uninspected_credentials: true}]\n    binaries: [{path: /usr/bin/curl}]\n",
        "raw.yaml"));
    CHECK(of_rule(run_lint(opted), kUninspectedCredential).empty());
}

namespace {
// A policy that inspects `host` and binds a credential to it through the relay.
LintInput inspecting(const std::string& host,
                     const std::string& secret_file = "/nonexistent/toolcage-lint/token") {
    LintInput in = input({"pypi.org", host});
    in.inspect.push_back({host, "p.json", "/relay/inspect/0"});
    toolcage::RelayCredential c;
    c.host = host;
    c.secret_file = secret_file;
    c.as = "bearer";
    c.placeholder_env = "GITHUB_TOKEN";
    in.credentials.push_back({c, "p.json", "/relay/credentials/0"});
    return in;
}
}  // namespace

TEST_CASE("a relay.credentials host OpenShell also injects for is two layers for one endpoint") {
    LintInput in = inspecting("github.com");
    in.providers = read_providers_file(kFixtures + "/openshell_provider_github.yaml");
    Findings fs = run_lint(in);
    auto two = of_rule(fs, kTwoLayers);
    REQUIRE(two.size() == 1);
    CHECK(two[0]->file == "p.json");
    CHECK(two[0]->field == "/relay/credentials/0/host");
    CHECK(two[0]->message.find("provider \"github\" (GITHUB_TOKEN, GH_TOKEN)") !=
          std::string::npos);
    CHECK(two[0]->message.find("openshell_provider_github.yaml") != std::string::npos);
    CHECK(two[0]->fix.find("keep one layer") != std::string::npos);
    // The inspected host is reachable through the relay, undeclared: the credential-host rule,
    // on relay.inspect as on relay.allow.
    auto reach = of_rule(fs, kCredentialHost);
    REQUIRE(reach.size() == 2);
    CHECK(reach[0]->field == "/relay/inspect/0");
    CHECK(reach[0]->message.find("is inspected") != std::string::npos);
    CHECK(reach[1]->field == "/relay/allow/1");
    CHECK(failing(fs));
    // Which layer holds which secret: api.github.com is OpenShell's alone.
    auto layers = of_rule(fs, kCredentialLayer);
    REQUIRE(layers.size() == 1);
    CHECK(layers[0]->note);
    CHECK(layers[0]->field == "api.github.com");
    CHECK(layers[0]->file == kFixtures + "/openshell_provider_github.yaml");
    CHECK(layers[0]->message.find("OpenShell injects its credential") != std::string::npos);
    CHECK(layers[0]->message.find("toolcage's relay injects none") != std::string::npos);
}

TEST_CASE(
    "with no OpenShell provider for it, the relay's credential is the only layer, said in a note") {
    LintInput in = inspecting("git.example.com");
    in.providers = read_providers_file(kFixtures + "/openshell_provider_github.yaml");
    Findings fs = run_lint(in);
    CHECK(of_rule(fs, kTwoLayers).empty());
    CHECK(of_rule(fs, kCredentialHost).empty());
    auto layers = of_rule(fs, kCredentialLayer);
    REQUIRE(layers.size() ==
            3);  // git.example.com the relay's; api.github.com, github.com OpenShell's
    CHECK(layers[0]->field == "/relay/credentials/0/host");
    CHECK(layers[0]->message.find(
              "toolcage's relay injects its credential (a bearer token from "
              "/nonexistent/toolcage-lint/token; the step holds only $GITHUB_TOKEN's "
              "placeholder); no OpenShell provider injects one") != std::string::npos);
    CHECK(layers[1]->field == "api.github.com");
    CHECK(layers[2]->field == "github.com");
    CHECK_FALSE(failing(fs));  // notes, and the secret file missing here is a note too
    auto fields = of_rule(fs, kInspectionField);
    REQUIRE(fields.size() == 1);
    CHECK(fields[0]->note);
    CHECK(fields[0]->field == "/relay/credentials/0/secret_file");
}

TEST_CASE("an inspected host where OpenShell injects passes when relay.credentialed declares it") {
    LintInput in = input({"pypi.org", "github.com"}, {"github.com"});
    in.inspect.push_back({"github.com", "p.json", "/relay/inspect/0"});
    in.providers = read_providers_file(kFixtures + "/openshell_provider_github.yaml");
    Findings fs = run_lint(in);
    CHECK(of_rule(fs, kCredentialHost).empty());
    CHECK_FALSE(failing(fs));
}

TEST_CASE(
    "a secret file in a grant, readable by others, and an upstream_ca without a certificate") {
    toolcage::test::TempDir d;
    const std::string secret = d / "secrets/token";
    toolcage::test::make_dirs(d / "secrets");
    toolcage::test::write_file(secret, "s3cret\n");
    REQUIRE(::chmod(secret.c_str(), 0644) == 0);
    LintInput in = inspecting("git.example.com", secret);
    in.grants.push_back({"/usr", "p.json", "/cage/read/0"});
    in.grants.push_back({d.path(), "p.json", "/cage/read/1"});
    in.grants.push_back({"{workspace}", "p.json", "/cage/write/0"});  // run checks it, knowing it
    toolcage::test::write_file(d / "ca.pem", "not a certificate\n");
    in.upstream_ca = PolicyEntry{d / "ca.pem", "p.json", "/relay/upstream_ca"};
    Findings fs = run_lint(in);
    auto fields = of_rule(fs, kInspectionField);
    REQUIRE(fields.size() == 3);
    CHECK(fields[0]->field == "/relay/credentials/0/secret_file");
    CHECK(fields[0]->message.find("lies in the step's grant \"" + d.path() +
                                  "\" (p.json at /cage/read/1)") != std::string::npos);
    CHECK(fields[0]->fix.find("move the file out of every cage.read") != std::string::npos);
    CHECK(fields[1]->message.find("mode 0644: other users can read the secret") !=
          std::string::npos);
    CHECK(fields[1]->fix == "chmod 600 " + secret);
    CHECK(fields[2]->field == "/relay/upstream_ca");
    CHECK(fields[2]->message.find("holds no PEM certificate") != std::string::npos);
    // The secret itself is never in a finding.
    for (const auto& f : fs) CHECK(f.message.find("s3cret") == std::string::npos);
    CHECK(failing(fs));
}
