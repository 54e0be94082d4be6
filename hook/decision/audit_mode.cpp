#include "hook/decision/audit_mode.h"

namespace toolcage::hook {

namespace {

std::string would_have(Decision d) {
    switch (d) {
        case Decision::allow:
            return "allowed";
        case Decision::cage:
            return "run inside the cage";
        case Decision::ask:
            return "asked a person";
        case Decision::deny:
            return "DENIED";
    }
    return "refused";
}

}  // namespace

Verdict apply_audit_mode(Outcome& o, const Policy& policy) {
    Verdict enforced = o.verdict;
    if (policy.mode != "audit") return enforced;
    o.verdict.decision = Decision::allow;
    o.verdict.reason = std::string(kAuditBanner) + " (policy \"" + policy.name +
                       "\" has \"mode\": \"audit\"): enforce mode would have " +
                       would_have(enforced.decision) + " this call: " + enforced.reason;
    o.rewrite.clear();
    o.step_id.clear();  // the command runs as sent: no step starts
    o.audit = true;
    return enforced;
}

}  // namespace toolcage::hook
