// relay.requests: which methods and paths an inspected host may be sent. Pure, tested by tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/policy.h"

namespace toolcage::relay {

// The request target's path, query left out, percent-decoded. nullopt (with `problem`) for what a
// rule could be fooled by: not origin-form, a bad or NUL escape, a "." or ".." segment, an
// encoded '/'.
std::optional<std::string> decoded_request_path(std::string_view target, std::string& problem);

struct RuleRefusal {
    std::string rule;    // relay.requests["git.example.com"].deny[0]
    std::string reason;  // for the 403's body: the rule, what it says, the policy field
};

// nullopt when `method` `path` (decoded) may be sent under `rules` of host entry `host`.
std::optional<RuleRefusal> judge_request(const std::string& host, const RelayRequestRules& rules,
                                         const std::string& method, const std::string& path);

}  // namespace toolcage::relay
