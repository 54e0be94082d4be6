// The catalogue of the classifier's built-in rule ids: the names a policy's "overrides" may use.
// Every verdict the classifier gives carries one of these ids (or the id of a policy's own rule).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::classify {

// Every built-in rule id, sorted, without duplicates.
std::vector<std::string> builtin_rule_ids();

// True when `id` is a built-in rule id.
bool is_builtin_rule(std::string_view id);

}  // namespace toolcage::classify
