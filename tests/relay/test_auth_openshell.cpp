// Token authentication and the OpenShell policy generator.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "common/policy.h"
#include "relay/auth.h"
#include "relay/openshell_policy.h"

using namespace toolcage::relay;

TEST_CASE("base64 round trip and strict decoding") {
    for (std::string s : {"", "a", "ab", "abc", "toolcage:0123456789abcdef"})
        CHECK(base64_decode(base64_encode(s)) == s);
    CHECK_FALSE(base64_decode("abc"));
    CHECK_FALSE(base64_decode("a=bc"));
    CHECK_FALSE(base64_decode("ab=c"));
    CHECK_FALSE(base64_decode("ab$c"));
}

TEST_CASE("token auth accepts only user toolcage with the token") {
    TokenAuth auth("0123456789abcdef0123");
    auto hdr = [](std::string creds) {
        return std::optional<std::string>("Basic " + base64_encode(creds));
    };
    CHECK(auth.accepts(hdr("toolcage:0123456789abcdef0123")));
    CHECK(auth.accepts(std::optional<std::string>("basic " +
                                                  base64_encode("toolcage:0123456789abcdef0123"))));
    CHECK_FALSE(auth.accepts(std::nullopt));
    CHECK_FALSE(auth.accepts(hdr("toolcage:0123456789abcdef012")));
    CHECK_FALSE(auth.accepts(hdr("toolcage:0123456789abcdef01234")));
    CHECK_FALSE(auth.accepts(hdr("other:0123456789abcdef0123")));
    CHECK_FALSE(auth.accepts(std::optional<std::string>("Bearer 0123456789abcdef0123")));
    CHECK(TokenAuth().accepts(std::nullopt));
    CHECK(constant_time_equal("abc", "abc"));
    CHECK_FALSE(constant_time_equal("abc", "abd"));
    CHECK_FALSE(constant_time_equal("abc", "abcd"));
}

TEST_CASE("openshell policy grants the relay binary only, one endpoint per entry") {
    toolcage::Policy p;
    p.name = "forge";
    p.relay.allow = {"api.example.com", "*.cdn.example.net:8443", "Git.Example.com:22"};
    std::string y = openshell_policy_yaml(p, "/usr/local/bin/toolcage-relay");
    CHECK(y.find("version: 1\n") != std::string::npos);
    CHECK(y.find("network_policies:\n  toolcage_relay_forge:\n") != std::string::npos);
    // Stand-alone: OpenShell's default TLS handling, which no stock policy's endpoint conflicts with.
    CHECK(y.find("      - host: \"api.example.com\"\n        port: 443\n      - ") != std::string::npos);
    CHECK(y.find("tls: skip") == std::string::npos);
    // The relay's *.suffix matches any depth: OpenShell's **.suffix (its * is one label).
    CHECK(y.find("      - host: \"**.cdn.example.net\"\n        port: 8443\n") != std::string::npos);
    CHECK(y.find("      - host: \"git.example.com\"\n        port: 22\n") != std::string::npos);
    CHECK(y.find("    binaries:\n      - path: \"/usr/local/bin/toolcage-relay\"\n") !=
          std::string::npos);
    // Exactly one binary.
    CHECK(y.find("- path:") == y.rfind("- path:"));

    p.relay.allow = {"*.com"};
    CHECK_THROWS_AS(openshell_policy_yaml(p, "/usr/local/bin/toolcage-relay"), toolcage::Error);
    p.relay.allow = {};
    CHECK_THROWS_AS(openshell_policy_yaml(p, "/usr/local/bin/toolcage-relay"), toolcage::Error);
    p.relay.allow = {"api.example.com"};
    CHECK_THROWS_AS(openshell_policy_yaml(p, "toolcage-relay"), toolcage::Error);
    // OpenShell reads a binary path as a glob: `/usr/**` would grant every program there.
    for (const char* glob : {"/usr/**", "/usr/local/bin/toolcage-rela?", "/usr/local/bin/[t]oolcage-relay",
                             "/usr/local/bin/toolcage-relay{,2}"}) {
        INFO(glob);
        try {
            openshell_policy_yaml(p, glob);
            FAIL("a glob was granted as the relay's path");
        } catch (const toolcage::Error& e) {
            CHECK(std::string(e.what()).find("glob") != std::string::npos);
        }
    }
}

TEST_CASE("openshell policy: a placeholder left unfilled is refused with the fix") {
    toolcage::Policy p;
    p.name = "forge";
    p.relay.allow = {"{npm_registry}", "pypi.org"};
    try {
        openshell_policy_yaml(p, "/usr/local/bin/toolcage-relay");
        FAIL("a placeholder was printed as a host");
    } catch (const toolcage::Error& e) {
        std::string m = e.what();
        CHECK(m.find("\"{npm_registry}\" is a placeholder") != std::string::npos);
        CHECK(m.find("--npm-registry") != std::string::npos);
    }
}

TEST_CASE("openshell policy: a host of relay.credentialed gets OpenShell's inspected shape") {
    toolcage::Policy p;
    p.name = "forge";
    p.relay.allow = {"pypi.org", "api.anthropic.com", "api.example.com:8443", "a.models.example.net"};
    p.relay.credentialed = {"api.anthropic.com", "api.example.com", "*.models.example.net"};
    std::string y = openshell_policy_yaml(p, "/usr/local/bin/toolcage-relay");
    const std::string inspected = "        protocol: rest\n        access: read-write\n        enforcement: enforce\n";
    CHECK(y.find("      - host: \"pypi.org\"\n        port: 443\n      - ") != std::string::npos);
    CHECK(y.find("      - host: \"api.anthropic.com\"\n        port: 443\n" + inspected) != std::string::npos);
    // Declared for port 443 only: the 8443 endpoint stays a plain L4 one.
    CHECK(y.find("      - host: \"api.example.com\"\n        port: 8443\n      - ") != std::string::npos);
    CHECK(y.find("      - host: \"a.models.example.net\"\n        port: 443\n" + inspected) !=
          std::string::npos);
}
