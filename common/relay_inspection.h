// The checks across relay fields that only the merged policy can answer (a base may allow and
// inspect what a child binds a credential to): relay.inspect within relay.allow, every
// credential's and request rule's host within relay.inspect.
#pragma once

#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage {

// Whether allow-grammar entry `wide` covers every host:port that `narrow` names (same port).
bool allow_entry_covers(const std::string& wide, const std::string& narrow);

// Throws toolcage::Error naming the policy file, the field (/relay/inspect/0 ...) and the fix.
void check_relay_inspection(const Policy& p);

}  // namespace toolcage
