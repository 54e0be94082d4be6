// The policy file format: which fields exist, what each may hold, and the conversion from a
// validated JSON document to the Policy model. Errors read "<file>: <pointer>: <what>: <fix>".
#pragma once

#include <nlohmann/json_fwd.hpp>
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

}  // namespace toolcage
