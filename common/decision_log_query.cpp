#include "common/decision_log_query.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace toolcage {

namespace {

std::string iso_utc(std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    return buf;
}

bool all_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Wrappers whose first operand is the program that really runs.
bool is_wrapper(std::string_view w) {
    return w == "sudo" || w == "env" || w == "nohup" || w == "time" || w == "nice" || w == "exec" ||
           w == "command" || w == "builtin" || w == "doas";
}

bool is_assignment(std::string_view w) {
    auto eq = w.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq),
                       [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

namespace {

// Reads one line with nlohmann's SAX parser into the fields `toolcage log` shows: no document
// is built, and values of other fields are dropped as they are read (a few thousand lines
// must read in a blink).
class EntryReader : public nlohmann::json_sax<nlohmann::json> {
  public:
    explicit EntryReader(LogEntry& e) : e_(e) {}
    bool top_object = false;

    bool null() override { return done(); }
    bool boolean(bool) override { return done(); }
    bool number_integer(number_integer_t v) override { return integer(v); }
    bool number_unsigned(number_unsigned_t v) override {
        return integer(static_cast<long long>(v));
    }
    bool number_float(number_float_t, const string_t&) override { return done(); }
    bool binary(binary_t&) override { return done(); }
    bool string(string_t& v) override {
        if (depth_ == 1 && target_) *target_ = std::move(v);
        return done();
    }
    bool start_object(std::size_t) override {
        if (depth_ == 0) top_object = true;
        if (depth_ == 2 && in_refusals_) ++e_.refusals;
        ++depth_;
        return true;
    }
    bool end_object() override {
        --depth_;
        return done();
    }
    bool start_array(std::size_t) override {
        in_refusals_ = depth_ == 1 && key_ == "refusals";
        ++depth_;
        return true;
    }
    bool end_array() override {
        if (--depth_ == 1) in_refusals_ = false;
        return done();
    }
    bool key(string_t& k) override {
        if (depth_ != 1) return true;
        key_ = k;
        target_ = field(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    std::string* field(const std::string& k) {
        static const std::pair<const char*, std::string LogEntry::*> fields[] = {
            {"time", &LogEntry::time},       {"event", &LogEntry::event},
            {"agent", &LogEntry::agent},     {"profile", &LogEntry::profile},
            {"session", &LogEntry::session}, {"tool", &LogEntry::tool},
            {"verdict", &LogEntry::verdict}, {"rule", &LogEntry::rule},
            {"reason", &LogEntry::reason},   {"command", &LogEntry::command},
            {"mode", &LogEntry::mode},       {"kind", &LogEntry::kind},
            {"channel", &LogEntry::channel}};
        for (const auto& [name, member] : fields)
            if (k == name) return &(e_.*member);
        return nullptr;
    }
    bool integer(long long v) {
        if (depth_ == 1 && key_ == "status") e_.status = v;
        return done();
    }
    bool done() {
        if (depth_ == 1) target_ = nullptr;
        return true;
    }
    LogEntry& e_;
    int depth_ = 0;
    bool in_refusals_ = false;
    std::string key_;
    std::string* target_ = nullptr;
};

}  // namespace

std::optional<LogEntry> parse_log_line(std::string_view line) {
    LogEntry e;
    EntryReader reader(e);
    if (!nlohmann::json::sax_parse(line.begin(), line.end(), &reader) || !reader.top_object)
        return std::nullopt;
    return e;
}

bool matches(const LogEntry& e, const LogFilter& f) {
    if (!f.verdicts.empty() && !f.verdicts.count(e.verdict)) return false;
    if (!f.since.empty() && e.time < f.since) return false;
    if (!f.agent.empty() && e.agent != f.agent) return false;
    if (!f.session.empty() && e.session != f.session) return false;
    if (f.persisted && e.channel.empty()) return false;
    if (!f.rule.empty()) {
        bool prefix = f.rule.back() == '.';
        if (prefix ? !e.rule.starts_with(f.rule) : e.rule != f.rule) return false;
    }
    return true;
}

std::string since_cutoff(const std::string& spec, std::chrono::system_clock::time_point now) {
    const std::string fix = "--since \"" + spec +
                            "\": give a duration (30s, 15m, 1h, 2d, 1w) or an ISO date or time "
                            "(2026-11-30, 2026-11-30T18:00:00Z)";
    if (spec.size() >= 2 && all_digits(std::string_view(spec).substr(0, spec.size() - 1))) {
        long long n = 0;
        try {
            n = std::stoll(spec.substr(0, spec.size() - 1));
        } catch (const std::exception&) {
            throw Error(fix);
        }
        long long unit = 0;
        switch (spec.back()) {
            case 's':
                unit = 1;
                break;
            case 'm':
                unit = 60;
                break;
            case 'h':
                unit = 3600;
                break;
            case 'd':
                unit = 86400;
                break;
            case 'w':
                unit = 7 * 86400;
                break;
            default:
                throw Error(fix);
        }
        if (n > 100LL * 365 * 86400 / unit) throw Error(fix);
        return iso_utc(std::chrono::system_clock::to_time_t(now) -
                       static_cast<std::time_t>(n * unit));
    }
    // An ISO date or time: YYYY-MM-DD[THH:MM[:SS[.mmm]]][Z]; compared as text with the log's.
    std::string s = spec;
    if (!s.empty() && s.back() == 'Z') s.pop_back();
    auto digits_at = [&](std::size_t pos, std::size_t n) {
        return s.size() >= pos + n && all_digits(std::string_view(s).substr(pos, n));
    };
    bool ok = s.size() >= 10 && digits_at(0, 4) && s[4] == '-' && digits_at(5, 2) && s[7] == '-' &&
              digits_at(8, 2);
    if (ok && s.size() > 10)
        ok = (s[10] == 'T' || s[10] == ' ') && digits_at(11, 2) && s.size() >= 16 && s[13] == ':' &&
             digits_at(14, 2) && (s.size() == 16 || (s[16] == ':' && digits_at(17, 2)));
    if (!ok) throw Error(fix);
    if (s.size() > 10) s[10] = 'T';
    return s;  // a prefix sorts before every time that begins with it
}

std::vector<std::string> programs_of(std::string_view command) {
    std::vector<std::string> out;
    std::size_t i = 0;
    const std::size_t n = command.size();
    while (i < n) {
        bool first = true;
        while (i < n) {
            char c = command[i];
            if (c == ';' || c == '|' || c == '&' || c == '\n' || c == '(' || c == ')') {
                ++i;
                break;
            }
            if (std::isspace(static_cast<unsigned char>(c))) {
                ++i;
                continue;
            }
            std::size_t start = i;
            char quote = 0;
            while (i < n) {
                char d = command[i];
                if (quote) {
                    if (d == quote) quote = 0;
                } else if (d == '\'' || d == '"') {
                    quote = d;
                } else if (std::isspace(static_cast<unsigned char>(d)) || d == ';' || d == '|' ||
                           d == '&' || d == '\n' || d == '(' || d == ')') {
                    break;
                }
                ++i;
            }
            std::string_view w = command.substr(start, i - start);
            if (!first) continue;
            if (is_assignment(w) || is_wrapper(w) || (w.size() > 1 && w[0] == '-')) continue;
            std::string word(w);
            word.erase(std::remove(word.begin(), word.end(), '\''), word.end());
            word.erase(std::remove(word.begin(), word.end(), '"'), word.end());
            if (auto slash = word.rfind('/'); slash != std::string::npos && slash + 1 < word.size())
                word = word.substr(slash + 1);
            if (!word.empty()) out.push_back(word);
            first = false;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void count_entry(LogStats& s, const LogEntry& e, ProgramReader programs) {
    if (!e.is_decision()) {
        if (e.event == "step") ++s.steps;
        return;
    }
    ++s.decisions;
    if (e.mode == "audit") ++s.audit;
    ++s.by_verdict[e.verdict];
    ++s.by_rule[e.rule.empty() ? "(none)" : e.rule];
    ++s.by_agent[e.agent.empty() ? "(unknown)" : e.agent];
    if (e.kind.empty() || e.kind == "shell")
        for (const auto& p : programs(e.command)) ++s.by_program[p];
}

}  // namespace toolcage
