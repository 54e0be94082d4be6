// Reading the decision log back for people (`toolcage log`): one entry per line, filters by
// verdict, time, agent and rule, and the counts behind `--stats`.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage {

// One line of the log. Hook decisions have `verdict`; the cage's lines have `event` ("step",
// "tamper", ...) and no verdict.
struct LogEntry {
    std::string time, event, agent, profile, session, tool, verdict, rule, reason, command, mode;
    std::string kind;          // shell, write, code, read, persist or other (what `command` holds)
    std::string channel;       // a write Hermes carries into later sessions (memory, skills…);
                               // `command` is then the entry
    long long status = 0;      // a step's exit status
    std::size_t refusals = 0;  // a step's explained refusals
    bool is_decision() const { return !verdict.empty(); }
};

// nullopt when the line is not a JSON object (a torn or foreign line).
std::optional<LogEntry> parse_log_line(std::string_view line);

struct LogFilter {
    std::set<std::string> verdicts;  // empty: every verdict (and the cage's lines too)
    std::string since;  // an ISO time as the log writes it; entries before it are left out
    std::string agent;
    std::string rule;  // exact id, or a prefix ending in '.' ("git.")
    std::string session;  // the agent's session id, exactly
    bool persisted = false;  // only writes to a channel into later sessions (`channel` set)
};

bool matches(const LogEntry& e, const LogFilter& f);

// --since: a duration back from `now` (30s, 15m, 1h, 2d, 1w) or an ISO date or time
// (2026-11-30, 2026-11-30T18:00, 2026-11-30T18:00:00Z), as the log's time text to compare
// against. Throws Error naming the fix.
std::string since_cutoff(const std::string& spec, std::chrono::system_clock::time_point now);

// The programs a logged command runs, cheaply: the first word of each command between
// separators (; && || | newline), past variable assignments and sudo/env/nohup/time. For
// counting, not deciding.
std::vector<std::string> programs_of(std::string_view command);

struct LogStats {
    std::size_t lines = 0;       // lines read
    std::size_t unreadable = 0;  // lines that were not JSON objects
    std::size_t decisions = 0;   // hook decisions that matched
    std::size_t steps = 0;       // caged steps that matched
    std::size_t audit = 0;       // decisions made under audit mode
    std::map<std::string, std::size_t> by_verdict, by_rule, by_agent, by_program;
};

// `programs` reads the programs of a shell command (`toolcage log` gives the classifier's reading).
using ProgramReader = std::vector<std::string> (*)(std::string_view command);
void count_entry(LogStats& s, const LogEntry& e, ProgramReader programs = programs_of);

}  // namespace toolcage
