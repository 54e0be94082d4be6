// `toolcage log`: the decision log as a person reads it. Recent decisions as a table, filtered
// by verdict, time, agent and rule; --stats counts them; --json passes the matching lines on.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/decision_log.h"
#include "common/decision_log_query.h"
#include "common/error.h"
#include "fleet/forward.h"
#include "tools/commands.h"
#include "tools/log_programs.h"

namespace toolcage::cli {

namespace {

struct LogOptions {
    std::string file;
    bool deny = false, ask = false, cage = false, allow = false;
    std::string since, agent, rule, session;
    bool persisted = false;
    bool stats = false;
    bool json = false;
    std::string format = "table";  // table, json or ocsf
    std::size_t limit = 20;
    bool all = false;
};

std::string cut(std::string s, std::size_t max) {
    for (char& c : s)
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    if (s.size() <= max) return s;
    std::size_t end = max - 1;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end) + "…";
}

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

// "2026-11-30T18:44:17.123Z" -> "2026-11-30 18:44:17" (UTC, as logged).
std::string short_time(const std::string& t) {
    if (t.size() < 19) return t;
    std::string s = t.substr(0, 19);
    s[10] = ' ';
    return s;
}

std::string table_row(const LogEntry& e) {
    std::string what;
    if (e.is_decision()) {
        what = pad(e.verdict + (e.mode == "audit" ? "*" : ""), 7) + pad(e.agent, 9) +
               pad(e.rule, 28) + cut(e.command, 70);
    } else {
        std::string ev = e.event.empty() ? "?" : e.event;
        what = pad(ev, 7) + pad("run", 9) +
               pad("status " + std::to_string(e.status) +
                       (e.refusals ? ", " + std::to_string(e.refusals) + " refused" : ""),
                   28) +
               cut(e.command, 70);
    }
    return short_time(e.time) + "  " + what;
}

// --persisted: what the agent left for its later sessions, session by session (in the order
// each session first appears), each entry with its verdict and channel.
void print_persisted(const std::deque<LogEntry>& rows) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const LogEntry*>> by_session;
    for (const auto& e : rows) {
        auto [it, fresh] = by_session.try_emplace(e.session);
        if (fresh) order.push_back(e.session);
        it->second.push_back(&e);
    }
    for (const auto& s : order) {
        const auto& entries = by_session[s];
        const LogEntry& first = *entries.front();
        std::cout << "session " << (s.empty() ? "(none)" : s) << " (" << (first.agent.empty() ? "?" : first.agent)
                  << (first.profile.empty() ? "" : ", profile " + first.profile) << "):\n";
        for (const LogEntry* e : entries)
            std::cout << "  " << short_time(e->time) << "  " << pad(e->verdict + (e->mode == "audit" ? "*" : ""), 7)
                      << pad(e->channel, 15) << cut(e->command, 500) << '\n';
    }
}

void print_counts(const char* title, const std::map<std::string, std::size_t>& m, std::size_t top) {
    std::vector<std::pair<std::string, std::size_t>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::cout << title
              << (v.size() > top
                      ? " (top " + std::to_string(top) + " of " + std::to_string(v.size()) + ")"
                      : "")
              << ":\n";
    if (v.empty()) std::cout << "  (none)\n";
    for (std::size_t i = 0; i < v.size() && i < top; ++i)
        std::cout << "  " << pad(std::to_string(v[i].second), 8) << v[i].first << '\n';
}

void print_stats(const LogStats& s, const std::string& path) {
    std::cout << path << ": " << s.decisions << " decisions, " << s.steps << " caged steps";
    if (s.audit) std::cout << ", " << s.audit << " under audit mode (answered allow)";
    if (s.unreadable) std::cout << ", " << s.unreadable << " unreadable lines";
    std::cout << "\n\n";
    // Verdicts in their order of severity, each shown even at 0.
    std::cout << "by verdict:\n";
    for (const char* v : {"allow", "cage", "ask", "deny"}) {
        auto it = s.by_verdict.find(v);
        std::cout << "  " << pad(std::to_string(it == s.by_verdict.end() ? 0 : it->second), 8) << v
                  << '\n';
    }
    std::cout << '\n';
    print_counts("by rule", s.by_rule, 25);
    std::cout << '\n';
    print_counts("by agent", s.by_agent, 10);
    std::cout << '\n';
    print_counts("by program", s.by_program, 25);
}

// --stats --json: the same counts as one JSON object, every verdict present even at 0.
void print_stats_json(const LogStats& s, const std::string& path) {
    nlohmann::json verdicts = nlohmann::json::object();
    for (const char* v : {"allow", "cage", "ask", "deny"}) {
        auto it = s.by_verdict.find(v);
        verdicts[v] = it == s.by_verdict.end() ? 0 : it->second;
    }
    nlohmann::json j = {{"log", path},         {"decisions", s.decisions}, {"steps", s.steps},
                        {"audit", s.audit},     {"unreadable", s.unreadable}, {"by_verdict", verdicts},
                        {"by_rule", s.by_rule}, {"by_agent", s.by_agent}, {"by_program", s.by_program}};
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int run_log(const LogOptions& o) {
    if (o.stats && o.format == "ocsf")
        throw Error("log: --stats counts the log; OCSF events are its lines: drop --stats or --format ocsf");
    std::string path = o.file.empty() ? decision_log_path() : o.file;
    if (path.empty())
        throw Error("log: no decision log can be named (the user has no usable home or state directory); pass --file");
    // A --file given by hand that is missing or not a file is a mistake, not an empty log.
    if (!o.file.empty()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            throw Error("log: --file " + path + ": no such file; name a decision log (decisions.jsonl)");
        if (std::filesystem::is_directory(path, ec))
            throw Error("log: --file " + path + ": is a directory; name the log file in it (decisions.jsonl)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (::access(path.c_str(), F_OK) != 0) {
            std::cerr
                << "toolcage log: " << path
                << ": no decisions logged yet (the hook writes here once an agent calls it)\n";
            return 0;
        }
        throw Error("log: " + path + ": cannot be read; check its permissions, or pass --file");
    }
    LogFilter f;
    if (o.deny) f.verdicts.insert("deny");
    if (o.ask) f.verdicts.insert("ask");
    if (o.cage) f.verdicts.insert("cage");
    if (o.allow) f.verdicts.insert("allow");
    if (!o.since.empty()) f.since = since_cutoff(o.since, std::chrono::system_clock::now());
    f.agent = o.agent;
    f.rule = o.rule;
    f.session = o.session;
    f.persisted = o.persisted;

    LogStats stats;
    std::deque<std::string> raw;  // --json: the matching lines as written
    std::deque<LogEntry> rows;    // the table: the last `limit` matches
    const std::size_t keep = o.all ? SIZE_MAX : o.limit;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        ++stats.lines;
        auto e = parse_log_line(line);
        if (!e) {
            ++stats.unreadable;
            continue;
        }
        if (!matches(*e, f)) continue;
        if (o.stats) {
            count_entry(stats, *e, log_programs);
        } else if (o.json) {
            raw.push_back(std::move(line));
            if (raw.size() > keep) raw.pop_front();
        } else {
            rows.push_back(std::move(*e));
            if (rows.size() > keep) rows.pop_front();
        }
    }
    if (std::string note = fleet::unsent_note(path); !note.empty())
        std::cerr << "toolcage log: " << note << '\n';
    if (o.stats) {
        if (o.json)
            print_stats_json(stats, path);
        else
            print_stats(stats, path);
        return 0;
    }
    if (o.json) {
        for (const auto& l : raw) {
            if (o.format != "ocsf") {
                std::cout << l << '\n';
            } else if (auto e = fleet::ocsf_event(l, fleet::this_source())) {
                std::cout << e->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
            }
        }
        return 0;
    }
    if (rows.empty()) {
        std::cout << "no matching entries in " << path << '\n';
        return 0;
    }
    bool audit = std::ranges::any_of(rows, [](const LogEntry& e) { return e.mode == "audit"; });
    if (o.persisted) {
        print_persisted(rows);
    } else {
        std::cout << pad("time (UTC)", 21) << pad("verdict", 7) << pad("agent", 9) << pad("rule", 28)
                  << "command\n";
        for (const auto& e : rows) std::cout << table_row(e) << '\n';
    }
    if (audit)
        std::cout << "* audit mode: the verdict enforce mode would have given; the agent was "
                     "answered allow\n";
    return 0;
}

}  // namespace

Subcommand add_log_command(CLI::App& app) {
    auto o = std::make_shared<LogOptions>();
    auto* sub =
        app.add_subcommand("log", "Show the decision log: recent decisions, filters, --stats");
    sub->add_option(
        "--file", o->file,
        "The log to read (default: ~/.local/state/toolcage/decisions.jsonl of the user database's home)");
    sub->add_flag("--deny", o->deny, "Only denied calls");
    sub->add_flag("--ask", o->ask, "Only calls that asked a person");
    sub->add_flag("--cage", o->cage, "Only caged calls");
    sub->add_flag("--allow", o->allow, "Only allowed calls");
    sub->add_option("--since", o->since,
                    "Only entries after this: 30m, 1h, 2d, 1w or an ISO date (2026-11-30)");
    sub->add_option("--agent", o->agent, "Only this agent's calls (hermes, claude, openclaw)");
    sub->add_option("--rule", o->rule,
                    "Only this rule id (or every id under a prefix ending in '.', e.g. git.)");
    sub->add_option("--session", o->session, "Only this session's calls (the agent's session id)");
    sub->add_flag("--persisted", o->persisted,
                  "Only what the agent wrote for its later sessions (Hermes's memory, user profile, skills, "
                  "context files, cron prompts), listed session by session with the entries written");
    sub->add_flag("--stats", o->stats, "Counts by verdict, rule, agent and program");
    sub->add_flag("--json", o->json,
                  "Print the matching lines as logged (JSON Lines); with --stats, the counts as one JSON object");
    sub->add_option("--format", o->format,
                    "table (default), json (as --json) or ocsf: the matching lines as OCSF 1.8.0 "
                    "events, one JSON a line, for a file collector")
        ->check(CLI::IsMember({"table", "json", "ocsf"}));
    sub->add_option("-n,--limit", o->limit, "How many recent entries to show (default 20)")
        ->check(CLI::Validator(
            [](const std::string& v) -> std::string {
                std::size_t end = 0;
                long n = 0;
                try {
                    n = std::stol(v, &end);
                } catch (const std::exception&) {
                    end = 0;
                }
                return end == v.size() && n >= 1 ? "" : "takes a count of 1 or more (--all shows every entry), not \"" + v + "\"";
            },
            "N>=1"));
    sub->add_flag("--all", o->all, "Show every matching entry");
    return {sub, [o] {
        if (o->format != "table") o->json = true;  // json and ocsf print the matching lines
        return run_log(*o);
    }};
}

}  // namespace toolcage::cli
