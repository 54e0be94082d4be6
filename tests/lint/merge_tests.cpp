// `toolcage policy openshell NAME --base FILE`: the sandbox's policy with the relay's access
// merged in, accepted by OpenShell's admission as the lint reimplements it; and the stand-alone
// policy beside stock-shaped policies.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "common/error.h"
#include "lint/lint.h"
#include "lint/openshell_merge.h"
#include "lint/openshell_policy_file.h"
#include "lint/yaml_read.h"
#include "tests/hook/run_binary.h"
#include "tests/lint/lint_test_helpers.h"

using namespace toolcage::lint;
using toolcage::lint::test::error_of;
using toolcage::lint::test::has;
using toolcage::test::run_binary;
using toolcage::test::TempDir;
using toolcage::test::write_file;

namespace {
const std::string kFixtures = TOOLCAGE_LINT_FIXTURES;
const std::string kRelay = "/usr/local/bin/toolcage-relay";



RelayAccess forge_like(std::vector<RelayEndpoint> extra = {}) {
    RelayAccess r{"toolcage_relay_forge", "toolcage-relay forge", kRelay,
                  {{"registry.npmjs.org", 443, false, "registry.npmjs.org"},
                   {"pypi.org", 443, false, "pypi.org"},
                   {"files.pythonhosted.org", 443, false, "files.pythonhosted.org"},
                   {"crates.io", 443, false, "crates.io"}}};
    r.endpoints.insert(r.endpoints.end(), extra.begin(), extra.end());
    return r;
}

const Endpoint& relay_endpoint(const OpenShellPolicy& p, const std::string& host) {
    for (const auto& r : p.rules)
        if (r.key == "toolcage_relay_forge")
            for (const auto& e : r.endpoints)
                if (e.host == host) return e;
    FAIL("no relay endpoint for " << host);
    throw 0;
}

// Accepted: read as OpenShell reads it, and nothing its admission refuses.
Findings admission(const std::string& text, const std::string& file) {
    LintInput in;
    in.openshell.push_back(parse_openshell_policy(text, file));
    Findings out;
    for (auto& f : run_lint(in))
        if (!f.note) out.push_back(f);
    return out;
}

std::string text_of(const Findings& fs) {
    std::string s;
    for (const auto& f : fs) s += f.file + ": " + f.field + ": " + f.message + "\n";
    return s;
}
}  // namespace

TEST_CASE("merged into a stock-shaped policy: joined where the base shapes a host, tls: skip elsewhere") {
    const std::string base = toolcage::lint::yaml::read_text(kFixtures + "/stock_base.yaml", "base");
    std::string merged = merged_policy_yaml(forge_like(), base, "stock_base.yaml");
    INFO(merged);
    Findings fs = admission(merged, "merged.yaml");
    INFO(text_of(fs));
    CHECK(fs.empty());
    OpenShellPolicy p = parse_openshell_policy(merged, "merged.yaml");
    CHECK(p.rules.size() == 5);  // the base's four and the relay's
    CHECK(relay_endpoint(p, "registry.npmjs.org").tls.empty());  // joined: the base's default
    CHECK(relay_endpoint(p, "pypi.org").tls.empty());
    CHECK(relay_endpoint(p, "crates.io").tls == "skip");  // added: nothing else decides it
    // A `tls: skip` endpoint beside this base is what OpenShell refuses.
    LintInput in;
    in.openshell = {parse_openshell_policy(base, "b.yaml"),
                    parse_openshell_policy("version: 1\nnetwork_policies:\n  r:\n    endpoints:\n"
                                           "      - {host: pypi.org, port: 443, tls: skip}\n",
                                           "skip.yaml")};
    Findings both = run_lint(in);
    CHECK(std::count_if(both.begin(), both.end(), [](const Finding& f) { return f.rule == kAmbiguity; }) > 0);
    // Merging the output again replaces the relay's rule rather than adding a second one.
    std::string again = merged_policy_yaml(forge_like(), merged, "merged.yaml");
    CHECK(parse_openshell_policy(again, "again.yaml").rules.size() == 5);
}

TEST_CASE("the relay's any-depth wildcard is OpenShell's **, and joins what it covers") {
    const std::string base = toolcage::lint::yaml::read_text(kFixtures + "/stock_npm_preset.yaml", "base");
    std::string merged =
        merged_policy_yaml(forge_like({{"**.githubusercontent.com", 443, false, "*.githubusercontent.com"}}), base,
                           "stock_npm_preset.yaml");
    INFO(merged);
    CHECK(has(merged, "**.githubusercontent.com"));
    CHECK(admission(merged, "merged.yaml").empty());
    OpenShellPolicy p = parse_openshell_policy(merged, "merged.yaml");
    CHECK(relay_endpoint(p, "registry.npmjs.org").tls.empty());  // the preset terminates it
    CHECK(relay_endpoint(p, "**.githubusercontent.com").tls == "skip");
}

TEST_CASE("a fail-closed middleware's hosts keep OpenShell's default TLS handling") {
    const std::string base = toolcage::lint::yaml::read_text(kFixtures + "/stock_middleware.yaml", "base");
    std::string merged = merged_policy_yaml(forge_like(), base, "stock_middleware.yaml");
    INFO(merged);
    CHECK(admission(merged, "merged.yaml").empty());
    OpenShellPolicy p = parse_openshell_policy(merged, "merged.yaml");
    CHECK(relay_endpoint(p, "registry.npmjs.org").tls.empty());
    CHECK(relay_endpoint(p, "files.pythonhosted.org").tls.empty());
    CHECK(relay_endpoint(p, "crates.io").tls == "skip");
    CHECK(p.middlewares.size() == 1);  // kept
}

TEST_CASE("a host the base binds a credential to is refused unless relay.credentialed names it") {
    const std::string base =
        toolcage::lint::yaml::read_text(kFixtures + "/stock_full_with_provider.yaml", "base");
    std::string e = error_of([&] {
        merged_policy_yaml(forge_like({{"github.com", 443, false, "github.com"}}), base, "full.yaml");
    });
    CHECK(e.starts_with("full.yaml: network_policies._provider_github.endpoints[0]"));
    CHECK(has(e, "relay.credentialed"));
    // Declared: the inspected shape, which agrees with the provider's.
    std::string merged = merged_policy_yaml(forge_like({{"github.com", 443, true, "github.com"}}), base, "full.yaml");
    CHECK_FALSE(has(merged, "_provider_github"));  // the gateway adds provider layers itself
    CHECK(parse_openshell_policy(merged, "m.yaml").rules.size() == 2);
}

TEST_CASE("a relay wildcard over hosts the base shapes two ways is refused, naming both") {
    const std::string base =
        "version: 1\nnetwork_policies:\n  a:\n    endpoints:\n      - {host: a.example.com, port: 443, tls: skip}\n"
        "      - {host: b.example.com, port: 443}\n";
    std::string e = error_of([&] {
        merged_policy_yaml(forge_like({{"**.example.com", 443, false, "*.example.com"}}), base, "two.yaml");
    });
    CHECK(e.starts_with("two.yaml: relay.allow entry \"*.example.com\" cannot join"));
    CHECK(has(e, "tls="));
    // A base OpenShell refuses is refused before any merging.
    e = error_of([&] { merged_policy_yaml(forge_like(), "version: 1\nnetwork_policies: {a: {hosts: []}}\n", "bad.yaml"); });
    CHECK(has(e, "bad.yaml: network_policies.a.hosts: unknown field"));
}

TEST_CASE("every stock sandbox policy merged with forge is accepted (needs ../shared/openshell)") {
    // ../shared/openshell beside the clone, or where TOOLCAGE_OPENSHELL_STOCK points.
    const char* env = std::getenv("TOOLCAGE_OPENSHELL_STOCK");
    std::filesystem::path shared = env && *env ? std::filesystem::path(env)
                                               : std::filesystem::path(kFixtures) / "../../../../shared/openshell";
    if (!std::filesystem::is_directory(shared)) {
        WARN("skipped: " << shared.string() << " is absent (the stock OpenShell policies are not in this clone)");
        return;
    }
    std::size_t merged_count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(shared)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".yaml" || name.starts_with("nemoclaw-preset-") ||
            name.find("credentials") != std::string::npos)
            continue;  // presets are fragments; the prover's credentials file is no policy
        INFO(name);
        TempDir home;
        auto r = run_binary(TOOLCAGE_BIN,
                            {"policy", "openshell", "forge", "--base", entry.path().string(), "--relay", kRelay,
                             "--npm-registry", "https://registry.npmjs.org/"},
                            "", {{"PATH", "/usr/bin:/bin"}, {"HOME", home.path()}, {"LANG", "C.UTF-8"}});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        Findings fs = admission(r.out, name + " + forge");
        INFO(text_of(fs));
        CHECK(fs.empty());
        ++merged_count;
    }
    CHECK(merged_count >= 7);
}
