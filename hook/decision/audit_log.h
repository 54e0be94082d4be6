// The decision log: one JSON line per decision, appended with one write() so that concurrent
// hooks never interleave. A log that cannot be written warns; it never changes a verdict.
#pragma once

#include <string>

namespace toolcage::hook {

struct AuditRecord {
    std::string agent, profile, session, tool;  // profile: the agent's (Hermes's), not the policy
    std::string policy;  // the name of the policy the call was judged under
    std::string step;    // the id of the step the decision starts (a cage or a read-only cage)
    std::string kind;  // shell, write, code, read, persist or other: what `command` holds
    // A write Hermes carries into later sessions' prompts: its channel (memory, user_profile,
    // skills, context_files, cron_prompts), and `command` holds the entry written
    std::string channel;
    std::string verdict, rule, reason;
    std::string command;  // cut to 4 KiB
    bool audit = false;   // audit mode: `verdict` is what enforce mode would have answered; the
                          // agent was answered allow
    long long micros = 0;
};

// The decision log (common/decision_log.h: in toolcage's state directory, found from the user
// database). Empty when none can be named.
std::string audit_log_path();

// The line written for `r` (with its newline), for the tests.
std::string audit_line(const AuditRecord& r);

// Appends the line; returns an empty string, or the warning to print.
std::string append_audit(const AuditRecord& r);

}  // namespace toolcage::hook
