// The policy file format: which fields exist, what each may hold, and the conversion from a
// validated JSON document to the Policy model. Errors read "<file>: <pointer>: <what>: <fix>".
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage {

// Checks one policy file's document on its own (every field optional). Throws Error.
void validate_policy_json(const nlohmann::json& doc, const std::string& file);

// Every error of one policy file's document, each as validate_policy_json words it (the checks
// of independent fields and entries all run). Empty when valid.
std::vector<std::string> policy_json_errors(const nlohmann::json& doc, const std::string& file);

// Builds the model from a merged, validated document.
Policy policy_from_json(const nlohmann::json& doc, const std::string& file);

// Checks one relay allowlist entry: host, host:port or *.suffix[:port] (port 1-65535), or a
// placeholder {npm_registry}. Returns an empty string when valid, else what is wrong and the fix.
std::string check_allow_entry(const std::string& entry);

}  // namespace toolcage

namespace toolcage {

// The merged policy as JSON, in the file format (for `toolcage policy show`).
nlohmann::json policy_to_json(const Policy& p);

// relay.credentials and relay.requests as the policy writes them.
nlohmann::json relay_credentials_json(const std::vector<RelayCredential>& creds);
nlohmann::json relay_requests_json(const std::map<std::string, RelayRequestRules>& requests);

}  // namespace toolcage

namespace toolcage {

// The host's collector for the fleet's SIEM, `{"log": {"syslog": URL}}` in
// /etc/toolcage/fleet.json or <prefix>/share/toolcage/fleet.json (fleet/setting.h reads it).
struct SyslogTarget {
    std::string transport;  // "tcp", "udp" or "unix"
    std::string address;    // an IP address (tcp, udp) or an absolute socket path (unix)
    unsigned port = 0;      // tcp and udp
};

// tcp://IP:PORT, udp://IP:PORT ([IPv6]:PORT) or unix:/PATH. nullopt and `problem` (what is
// wrong and the fix) when it is not one of these. An IP address, never a name: a name would
// cost a DNS lookup in every hook call.
std::optional<SyslogTarget> read_syslog_url(const std::string& url, std::string& problem);

// Every error of a fleet setting document, each "<file>: <pointer>: <what>: <fix>".
std::vector<std::string> fleet_setting_errors(const nlohmann::json& doc, const std::string& file);

}  // namespace toolcage
