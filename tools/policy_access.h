// Loading the policy a subcommand was given, with the checks that need the classifier too
// (override ids must name real rules: a mistyped id would silently change nothing; a policy
// rule's examples must do as stated).
#pragma once

#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage::cli {

// --policy's value (a name or a file), or "default" when empty. Throws Error.
Policy load_checked_policy(const std::string& name_or_path);

// The override ids of `p` that name no rule, one error each.
std::vector<std::string> unknown_override_errors(const Policy& p);

// Those, and the examples of the policy's own rules that do not do as stated
// (classify::rule_example_errors): every check of a loaded policy that needs the classifier.
std::vector<std::string> classifier_policy_errors(const Policy& p);

}  // namespace toolcage::cli
