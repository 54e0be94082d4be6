// The catalogue of the classifier's built-in rule ids: the names a policy's "overrides" may use.
// Every verdict the classifier gives carries one of these ids (or the id of a policy's own rule).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::classify {

// One built-in rule, for `toolcage policy rules --long` and for choosing an override.
struct RuleDescription {
    std::string id;
    std::string verdict;  // before a policy's overrides; "cage or deny" when the arguments decide
    std::string matches;  // what it matches
    std::string reason;   // why that verdict
};

// Every built-in rule, sorted by id.
const std::vector<RuleDescription>& builtin_rules();

// Every built-in rule id, sorted, without duplicates.
std::vector<std::string> builtin_rule_ids();

// True when `id` is a built-in rule id.
bool is_builtin_rule(std::string_view id);

}  // namespace toolcage::classify
