// Classifying one shell command: allow (provably read-only), cage, ask or deny, with the rule
// id and reason. Unknown or unparseable means cage, never allow.
#pragma once

#include <string>
#include <vector>

#include "common/policy.h"
#include "common/verdict.h"
#include "common/workspace_choice.h"

namespace toolcage::classify {

// Where the command runs. Empty fields are filled by make_context().
struct Context {
    std::string cwd;        // absolute working directory of the call
    std::string workspace;  // common/workspace_choice.h: the git top level containing cwd, else
                            // cwd; empty when cwd is a home, / or holds toolcage's files
    std::string home;       // the agent's home directory ($HOME: where `~` in its commands goes)
    std::string real_home;  // the user database's home, protected whatever $HOME says
    std::string tmp;        // $TMPDIR of the agent, or /tmp
};

// Fills workspace (workspace::choose from cwd), home ($HOME, else the
// passwd entry) and tmp. cwd defaults to the process's working directory.
Context make_context(const std::string& cwd);
// The same with what no workspace may be already worked out (workspace::guarded_from_process()):
// the hook makes that once a call and judges every path of the call against it.
Context make_context(const std::string& cwd, const workspace::Guarded& guarded);

// The whole decision for one command string, with the policy's overrides, extra rules and
// on_cage applied. Never throws.
Verdict classify_command(const std::string& command, const Context& ctx, const Policy& policy);

// What the classifier saw in one command, for `toolcage explain`: every program it found (in
// the order it met them, after unwrapping) and every rule that fired, with the built-in verdict
// and the one the policy's overrides made of it.
struct RuleHit {
    Decision decision = Decision::deny;  // after the policy's overrides
    Decision builtin = Decision::deny;   // as the rule gives it
    std::string rule;
    std::string reason;
};
struct Explanation {
    Verdict verdict;
    std::vector<std::string> programs;
    std::vector<RuleHit> hits;
};
Explanation explain_command(const std::string& command, const Context& ctx, const Policy& policy);

// The examples of a policy's own rules that do not do as stated: a "match" command the rule
// does not fire on, a "not_match" one it fires on; each error names the file, the JSON pointer
// of the example and the fix. Empty when every example holds (rule_examples.cpp).
std::vector<std::string> rule_example_errors(const Policy& policy);

// Where one path lies (after ~ and cwd resolution; no filesystem access beyond lexical rules).
PathClass classify_path(const std::string& path, const Context& ctx);

}  // namespace toolcage::classify
