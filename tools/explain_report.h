// `toolcage explain CMD` and `toolcage check --explain`: how the classifier read a command, the
// programs it found, every rule that fired, the rule that decided, and the override that changes
// it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/policy.h"
#include "hook/classify/classifier.h"
#include "tools/policy_selection.h"

namespace toolcage::cli {

// `select`: how each installed agent is pointed at another policy (NAME stands for its name).
std::string explain_text(const std::string& command, const classify::Explanation& e,
                         const Policy& policy, const std::vector<PolicySelection>& select);
// The same as one JSON object (`--json`).
nlohmann::json explain_json(const std::string& command, const classify::Explanation& e,
                            const Policy& policy, const std::vector<PolicySelection>& select);

}  // namespace toolcage::cli
