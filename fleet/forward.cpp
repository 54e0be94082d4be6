#include "fleet/forward.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fleet/ocsf_event.h"
#include "fleet/setting.h"
#include "fleet/syslog_message.h"
#include "fleet/syslog_sender.h"
#include "fleet/unsent.h"

#ifndef TOOLCAGE_VERSION
#define TOOLCAGE_VERSION "unknown"
#endif

namespace toolcage::fleet {

namespace {

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "";
    return buf;
}

// Sends the events; returns those that did not go out.
std::vector<std::string> send_events(const SyslogTarget& target, const std::vector<std::string>& events,
                                     std::chrono::milliseconds budget) {
    std::vector<std::string> messages;
    const std::string host = this_source().hostname;
    const long pid = static_cast<long>(::getpid());
    for (const auto& e : events) {
        nlohmann::json j = nlohmann::json::parse(e, nullptr, false);
        messages.push_back(syslog_message(j.is_object() ? j : nlohmann::json::object(), host, pid));
    }
    SendResult r = send_syslog(target, messages, budget);
    return {events.begin() + static_cast<std::ptrdiff_t>(r.sent), events.end()};
}

}  // namespace

const EventSource& this_source() {
    static const EventSource s{TOOLCAGE_VERSION, host_name()};
    return s;
}

void forward_to_collector(const std::vector<std::string>& lines, const std::string& log_path) {
    try {
        const FleetSetting& setting = fleet_setting();
        if (setting.file.empty()) return;  // no collector on this host
        std::vector<std::string> events;
        for (const auto& line : lines)
            if (auto e = ocsf_event(line, this_source()))
                events.push_back(e->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        const std::string spool = unsent_path(log_path);
        if (!setting.syslog) {  // named, but invalid: what the collector misses is kept
            keep_unsent(spool, events);
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::string> left = send_events(*setting.syslog, events, kSendBudget);
        if (!left.empty()) {
            keep_unsent(spool, left);
            return;
        }
        // The collector is up: what earlier calls could not send goes now, in what is left of
        // this call's budget.
        std::vector<std::string> waiting = take_unsent(spool);
        if (waiting.empty()) return;
        auto used = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        auto budget = std::max(kSendBudget - used, std::chrono::milliseconds(20));
        keep_unsent(spool, send_events(*setting.syslog, waiting, budget));
    } catch (...) {
        // The collector is the fleet's copy; the local log already has the line.
    }
}

std::string unsent_note(const std::string& log_path) {
    const FleetSetting& setting = fleet_setting();
    std::string note;
    if (!setting.error.empty()) note = "the fleet setting is invalid, so no event reaches a collector: " + setting.error;
    std::size_t n = count_unsent(unsent_path(log_path));
    if (n == 0) return note;
    if (!note.empty()) note += "\n";
    note += std::to_string(n) + " event" + (n == 1 ? "" : "s") + " did not reach the collector" +
            (setting.url.empty() ? "" : " " + setting.url) + "; they wait in " + unsent_path(log_path) +
            " and go with the next call that reaches it";
    return note;
}

}  // namespace toolcage::fleet
