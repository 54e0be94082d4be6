// OpenShell sandbox policy files (YAML, one document, `version:` an integer), read as OpenShell's
// policy reader reads them: each rule's endpoints with every field its admission checks compare,
// the binaries it grants, and the middlewares that select endpoints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toolcage::lint {

// One `endpoints[]` entry: what OpenShell's validation and ambiguity check read.
struct Endpoint {
    std::string host;                  // lowercase; may hold `*` / `**` globs
    std::vector<std::uint32_t> ports;  // `ports` when given, else `port` (OpenShell's precedence)
    std::string path;
    std::string protocol;     // "", rest, websocket, graphql, mcp, json-rpc, tcp, sql
    std::string tls;          // "" (auto-detect), skip, terminate, passthrough
    std::string enforcement;  // "", enforce, audit
    std::string access;       // "", read-only, read-write, full
    std::vector<std::string> allowed_ips;
    bool allow_uninspected_credentials = false;
    bool allow_encoded_slash = false;
    bool websocket_credential_rewrite = false;
    bool request_body_credential_rewrite = false;
    bool websocket_graphql_policy = false;  // graphql fields in rules, or persisted queries
    std::string credential_signing, signing_service, signing_region;
    std::uint32_t graphql_max_body_bytes = 0;   // 0: OpenShell's default
    std::uint32_t json_rpc_max_body_bytes = 0;  // from `mcp:` when present, else `json_rpc:`
    bool mcp_strict_tool_names = true;          // mcp.strict_tool_names, default true
    bool has_credential_binding = false;
    std::string credential_binding;  // credential_binding.provider: the endpoint holds a credential
    std::string field;               // where it is written, e.g. network_policies.gh.endpoints[0]
};

struct NetworkRule {
    std::string key;   // the map key under network_policies
    std::string name;  // display name (defaults to the key)
    std::vector<Endpoint> endpoints;
    std::vector<std::string> binaries;
    // A provider's layer as `openshell policy get --full` prints the effective policy
    // (`_provider_<name>`): the gateway composes it in, and it holds that provider's credentials.
    bool provider_layer() const { return key.starts_with("_provider_"); }
};

// One `network_middlewares` entry: a fail-closed one (on_error "" or fail_closed) must inspect
// every endpoint its selector may match, so OpenShell refuses a `tls: skip` endpoint there.
struct Middleware {
    std::string name;
    long long order = 0;  // OpenShell's default; two middlewares may not share one
    std::string on_error;
    std::vector<std::string> include, exclude;
    std::string field;
    bool fail_closed() const { return on_error.empty() || on_error == "fail_closed"; }
};

struct OpenShellPolicy {
    std::string file;  // as given on the command line, or "<generated>"
    std::vector<NetworkRule> rules;
    std::vector<Middleware> middlewares;
};

// Reads a policy file. Throws Error naming the file, the field and the fix for what OpenShell's
// reader or its validation refuses: not a regular file, over 256 KiB, not exactly one YAML
// document, an unknown field, a missing or non-integer version, a quoted or out-of-range port,
// a binary that is not `path: …`, a host wildcard OpenShell does not accept, and the rest of
// its endpoint validation.
OpenShellPolicy read_openshell_policy_file(const std::string& path);

// The same from text already in memory (the policy `toolcage policy openshell` generates, or
// `openshell policy get --full` output, whose header is skipped).
OpenShellPolicy parse_openshell_policy(const std::string& text, const std::string& file);

// The text of `openshell policy get --full` without its header of revision facts; other text
// unchanged (CRLF line ends read as LF, as YAML reads them).
std::string policy_document_text(const std::string& text);

}  // namespace toolcage::lint
