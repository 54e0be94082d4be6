// The rule ids the hook answers with itself, outside the classifier's catalogue: the file tools'
// judgement, self-protection, the tools it does not inspect, its own failures. A policy cannot
// override them (its "overrides" reach the classifier's rules); each says why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::hook {

struct HookRule {
    std::string id;
    std::string verdict;  // what the hook answers; "ask or deny" where the policy decides
    std::string matches;  // what it matches
    std::string reason;   // why that verdict
    std::string fixed;    // why a policy cannot change it
};

// Every rule of the hook's own, sorted by id.
const std::vector<HookRule>& hook_rules();

// The hook's own rule `id`, or nullptr.
const HookRule* find_hook_rule(std::string_view id);

// Rules of the classifier's catalogue that no override changes either: its bounds
// (input.too-complex) answer before any policy is applied.
bool is_fixed_classifier_rule(std::string_view id);

}  // namespace toolcage::hook
