// What the decision made of one tool call: the verdict and the command that runs in its place.
// The decision writes it; every adapter writes its agent's answer from it.
#pragma once

#include <string>

#include "common/verdict.h"

namespace toolcage::hook {

// The decision, in the form every adapter answers from.
struct Outcome {
    Verdict verdict;
    // cage, and allow in the read-only cage: the command that runs the original inside it;
    // an allow that is not read-only: toolcage's own text for directory moves alone
    // (hook/decision/shell_state.h); empty when the command runs as sent
    std::string rewrite;
    bool read_only = false;       // the rewrite is the read-only cage's
    bool hermes_approve = false;  // the policy lets Hermes ask a person ({"action":"approve"})
    bool audit = false;           // audit mode: an allow that the answer must say is one
};

}  // namespace toolcage::hook
