// An OpenShell network policy that lets toolcage-relay, and no other binary, reach the hosts of
// a toolcage policy's relay allowlist through OpenShell's proxy.
#pragma once

#include <string>

#include "common/policy.h"

namespace toolcage::relay {

// YAML for `openshell policy set` (one document, `version: 1`, a single `network_policies`
// rule). relay.allow must hold no placeholder (fill {npm_registry} first, as the cage does); a
// host of relay.credentialed is given OpenShell's inspected shape, every other `tls: skip`.
// Throws toolcage::Error if an entry is invalid, a placeholder, or the list is empty.
std::string openshell_policy_yaml(const Policy& policy, const std::string& relay_binary_path);

}  // namespace toolcage::relay
