// relay.requests: which methods and paths an inspected host may be sent. Pure, tested by tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/policy.h"

namespace toolcage::relay {

// The request target's path, query left out, percent-decoded. An encoded '/' (%2F, the form npm
// sends a scoped name in: PUT /@scope%2fname) becomes '/' (as a server that decodes before it
// routes reads it), or stays "%2F" with `keep_encoded_slash` (as a server that routes first
// reads it). nullopt (with `problem`) for what a rule could be fooled by: not origin-form, a bad
// or NUL escape, a "." or ".." segment (in either reading).
std::optional<std::string> decoded_request_path(std::string_view target, std::string& problem,
                                                bool keep_encoded_slash = false);

struct RuleRefusal {
    std::string rule;    // relay.requests["git.example.com"].deny[0]
    std::string reason;  // for the 403's body: the rule, what it says, the policy field
};

// nullopt when `method` `path` (decoded) may be sent under `rules` of host entry `host`.
// `path_slashes_kept` (the same path with its encoded '/' kept, when it had one): a deny rule
// matching either reading refuses, so a %2F never slips a request past one; allow rules read
// `path`, where /@scope/name names what /@scope%2fname does.
std::optional<RuleRefusal> judge_request(const std::string& host, const RelayRequestRules& rules,
                                         const std::string& method, const std::string& path,
                                         const std::string& path_slashes_kept = {});

}  // namespace toolcage::relay
