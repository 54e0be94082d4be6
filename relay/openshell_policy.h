// An OpenShell network policy that lets toolcage-relay, and no other binary, reach the hosts of
// a toolcage policy's relay allowlist through OpenShell's proxy.
#pragma once

#include <string>

#include <vector>

#include "common/host_names.h"
#include "common/policy.h"

namespace toolcage::relay {

// YAML for `openshell policy set` (one document, `version: 1`, a single `network_policies`
// rule). relay.allow must hold no placeholder (fill {npm_registry} first, as the cage does); a
// host of relay.credentialed is given OpenShell's inspected shape, every other a plain L4
// endpoint that no stock policy's endpoint conflicts with.
// Throws toolcage::Error if an entry is invalid, a placeholder, or the list is empty.
std::string openshell_policy_yaml(const Policy& policy, const std::string& relay_binary_path);

// Whether relay.credentialed declares `e` (same port, a pattern that covers its hosts).
bool declared_credentialed(const AllowEntry& e, const std::vector<AllowEntry>& credentialed);

// The rule's key for policy `name` ("toolcage_relay_forge").
std::string relay_rule_key(const std::string& name);

// Throws toolcage::Error unless `path` is absolute, glob-free and free of control characters:
// OpenShell matches a binary path as a glob against the executable's canonical path.
void check_relay_binary_path(const std::string& path);

}  // namespace toolcage::relay
