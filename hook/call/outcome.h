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
    // The id of the step the rewrite starts (`toolcage run --step-id`, common/step_id.h): the
    // decision's log line carries it, as the step's does; empty when no step runs.
    std::string step_id;
    // A write to a channel by which Hermes carries the agent's words into later sessions
    // (common/hermes_channels.h): its key, and what a person approves (the entry itself, digested
    // into the approval's key in place of the call's `approves`); empty for any other call.
    std::string channel;
    std::string approves;
    bool hermes_approve = false;  // the policy lets Hermes ask a person ({"action":"approve"})
    bool audit = false;           // audit mode: an allow that the answer must say is one
};

}  // namespace toolcage::hook
