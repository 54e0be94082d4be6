// OpenShell sandbox policy files (YAML, schema version 1), read into plain data for the lint:
// each rule's endpoints with the fields that give a host its shape, and the binaries it grants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toolcage::lint {

// One `endpoints[]` entry. Only what the lint compares is kept; other fields are ignored.
struct Endpoint {
    std::string host;                  // lowercase; may hold `*` / `**` globs
    std::vector<std::uint32_t> ports;  // `port`, or `ports`
    std::string path;
    std::string protocol;     // "", rest, websocket, graphql, mcp, json-rpc, tcp, sql
    std::string tls;          // "" (auto-detect), skip, terminate, passthrough
    std::string enforcement;  // "", enforce, audit
    std::string access;       // "", read-only, read-write, full
    std::vector<std::string> allowed_ips;
    bool allow_uninspected_credentials = false;
    std::string credential_binding;  // credential_binding.provider: the endpoint holds a credential
    std::string field;               // where it is written, e.g. network_policies.gh.endpoints[0]
};

struct NetworkRule {
    std::string key;   // the map key under network_policies
    std::string name;  // display name (defaults to the key)
    std::vector<Endpoint> endpoints;
    std::vector<std::string> binaries;
};

struct OpenShellPolicy {
    std::string file;  // as given on the command line, or "<generated>"
    std::vector<NetworkRule> rules;
};

// Reads a policy file. Throws Error naming the file, the field and the fix for an unreadable
// file, bad YAML, a version other than 1, or a field of the wrong type.
OpenShellPolicy read_openshell_policy_file(const std::string& path);

// The same from text already in memory (the policy `toolcage policy openshell` generates).
OpenShellPolicy parse_openshell_policy(const std::string& text, const std::string& file);

}  // namespace toolcage::lint
