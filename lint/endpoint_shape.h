// OpenShell's endpoint ambiguity rule, pair by pair: which fields of two endpoints that can match
// one connection must agree (crates/openshell-policy/src/ambiguity.rs), and a key that is equal
// exactly when two endpoints agree on all of them.
#pragma once

#include <string>
#include <vector>

#include "lint/openshell_policy_file.h"

namespace toolcage::lint {

// Whether some request path matches both of OpenShell's path globs (`*` and `**` cross `/`,
// `?`, `[…]` classes); empty, `**` and `/**` match every path.
bool path_patterns_overlap(const std::string& a, const std::string& b);

// What OpenShell counts as the path's rank: characters other than `*` ("" ranks 0).
std::size_t path_specificity(const std::string& path);

// Whether the endpoint takes part in choosing how a request is parsed (an L7 protocol,
// allowed_ips, an explicit tls, a credential binding); plain L4 endpoints do not.
bool carries_request_metadata(const Endpoint& e);

// "field=left vs right" for each field the two disagree on; empty when they may coexist. Hosts
// and ports are the caller's to compare first.
std::vector<std::string> endpoint_conflicts(const Endpoint& a, const Endpoint& b);

// Equal for two endpoints exactly when endpoint_conflicts can find nothing between them,
// whatever their paths.
std::string shape_key(const Endpoint& e);

}  // namespace toolcage::lint
