// relay.inspect, relay.upstream_ca, relay.credentials and relay.requests in a policy: each
// mistake refused with the file, the field and the fix; a child may bind what its base inspects.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/policy_loader.h"
#include "common/policy_schema.h"
#include "relay_harness.h"

using nlohmann::json;

namespace {

json base_relay() {
    return {{"enabled", true},
            {"allow", {"git.example.com", "*.example.org", "api.example.net:8443"}},
            {"inspect", {"git.example.com"}}};
}

// The first error loading a policy whose relay section is `relay`, or "".
std::string error_of(const json& relay) {
    relaytest::TempDir dir;
    const std::string file = dir.file("p.json");
    std::ofstream(file) << json{{"name", "p"}, {"relay", relay}}.dump();
    auto errors = toolcage::policy_errors(file);
    return errors.empty() ? "" : errors.front();
}

}  // namespace

TEST_CASE("a policy inspecting an allowed host with a credential and rules loads",
          "[relay][inspect]") {
    json r = base_relay();
    r["credentials"] = {{{"host", "git.example.com"},
                         {"secret_file", "/root/.config/t"},
                         {"as", "basic:x-access-token"},
                         {"placeholder_env", "GITHUB_TOKEN"}}};
    r["requests"] = {
        {"git.example.com", {{"deny", {{{"method", "POST"}, {"path", "/*/git-receive-pack"}}}}}}};
    r["upstream_ca"] = "/etc/company-ca.pem";
    CHECK(error_of(r) == "");
    relaytest::TempDir dir;
    std::ofstream(dir.file("p.json")) << json{{"name", "p"}, {"relay", r}}.dump();
    auto p = toolcage::load_policy_file(dir.file("p.json"));
    REQUIRE(p.relay.credentials.size() == 1);
    CHECK(p.relay.credentials[0].as == "basic:x-access-token");
    CHECK(p.relay.requests.at("git.example.com").deny.at(0).method == "POST");
    CHECK(p.relay.upstream_ca == "/etc/company-ca.pem");
}

TEST_CASE("relay inspection fields: each mistake names its field and the fix", "[relay][inspect]") {
    struct Case {
        const char* what;
        json patch;  // merged into the relay section
        const char* expect;
    };
    const Case cases[] = {
        {"an inspected host not allowed", {{"inspect", {"other.example.com"}}}, "/relay/inspect/0"},
        {"an inspected host not allowed (fix)",
         {{"inspect", {"other.example.com"}}},
         "add \"other.example.com\" to relay.allow"},
        {"an inspected IP",
         {{"allow", {"10.0.0.1"}}, {"inspect", {"10.0.0.1"}}},
         "inspection needs a host name"},
        {"a wrong port", {{"inspect", {"api.example.net"}}}, "not allowed"},
        {"a relative upstream_ca", {{"upstream_ca", "ca.pem"}}, "/relay/upstream_ca"},
        {"a credential for an uninspected host",
         {{"credentials",
           {{{"host", "x.example.org"}, {"secret_file", "/s"}, {"placeholder_env", "T"}}}}},
         "not inspected"},
        {"a credential without secret_file",
         {{"credentials", {{{"host", "git.example.com"}, {"placeholder_env", "T"}}}}},
         "/relay/credentials/0/secret_file"},
        {"a relative secret_file",
         {{"credentials",
           {{{"host", "git.example.com"}, {"secret_file", "s"}, {"placeholder_env", "T"}}}}},
         "must be an absolute path"},
        {"a bad as",
         {{"credentials",
           {{{"host", "git.example.com"},
             {"secret_file", "/s"},
             {"placeholder_env", "T"},
             {"as", "token"}}}}},
         "/relay/credentials/0/as"},
        {"a bad variable",
         {{"credentials",
           {{{"host", "git.example.com"}, {"secret_file", "/s"}, {"placeholder_env", "A-B"}}}}},
         "an environment variable's name"},
        {"a wildcard credential host",
         {{"inspect", {"*.example.org"}},
          {"credentials",
           {{{"host", "*.example.org"}, {"secret_file", "/s"}, {"placeholder_env", "T"}}}}},
         "not a wildcard"},
        {"one variable twice",
         {{"inspect", {"git.example.com", "a.example.org"}},
          {"credentials",
           {{{"host", "git.example.com"}, {"secret_file", "/s"}, {"placeholder_env", "T"}},
            {{"host", "a.example.org"}, {"secret_file", "/s"}, {"placeholder_env", "T"}}}}},
         "/relay/credentials/1/placeholder_env"},
        {"rules for an uninspected host",
         {{"requests", {{"a.example.org", {{"deny", {{{"method", "POST"}}}}}}}}},
         "/relay/requests/a.example.org"},
        {"a lowercase method",
         {{"requests", {{"git.example.com", {{"deny", {{{"method", "post"}}}}}}}}},
         "/relay/requests/git.example.com/deny/0/method"},
        {"a path with a query",
         {{"requests", {{"git.example.com", {{"allow", {{{"path", "/x?y"}}}}}}}}},
         "/relay/requests/git.example.com/allow/0/path"},
        {"an unknown rule list",
         {{"requests", {{"git.example.com", {{"only", json::array()}}}}}},
         "unknown field"},
    };
    for (const auto& c : cases) {
        json r = base_relay();
        for (auto it = c.patch.begin(); it != c.patch.end(); ++it) r[it.key()] = *it;
        std::string e = error_of(r);
        INFO(c.what << ": " << e);
        CHECK(e.find(c.expect) != std::string::npos);
        CHECK(e.find("p.json") != std::string::npos);
    }
}

TEST_CASE("a child policy binds a credential to a host its base inspects", "[relay][inspect]") {
    relaytest::TempDir dir;
    std::ofstream(dir.file("base.json")) << json{{"name", "base"}, {"relay", base_relay()}}.dump();
    std::ofstream(dir.file("child.json")) << json{{"name", "child"},
                                                  {"extends", "base"},
                                                  {"relay",
                                                   {{"credentials",
                                                     {{{"host", "git.example.com"},
                                                       {"secret_file", "/s"},
                                                       {"placeholder_env", "GIT_TOKEN"}}}}}}}
                                                 .dump();
    auto p = toolcage::load_policy_file(dir.file("child.json"));
    CHECK(p.relay.inspect == std::vector<std::string>{"git.example.com"});
    CHECK(p.relay.credentials.size() == 1);
}
