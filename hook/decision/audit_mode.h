// Audit mode (a policy's "mode": "audit"): every call is let through, and the decision the
// policy would have made is kept for the log. Applied once, after the decision, before the answer.
#pragma once

#include "common/policy.h"
#include "hook/call/outcome.h"

namespace toolcage::hook {

// The banner every answer under audit mode carries, so nobody mistakes it for protection.
inline constexpr const char* kAuditBanner = "AUDIT MODE, NOTHING IS ENFORCED";

// In audit mode: `o` becomes an allow (no rewrite) whose reason says loudly that audit mode is
// on and what enforce mode would have answered. Returns the verdict enforce mode would have
// given (the one to log). In enforce mode `o` is left as it is.
Verdict apply_audit_mode(Outcome& o, const Policy& policy);

}  // namespace toolcage::hook
