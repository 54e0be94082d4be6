#include "hook/decision/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/decision_log.h"
#include "common/error.h"

namespace toolcage::hook {

namespace {

constexpr size_t kMaxCommand = 4096;

// Cut at a UTF-8 character boundary, so that the line stays valid JSON text.
std::string cut_utf8(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    size_t end = max;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end);
}

}  // namespace

std::string audit_log_path() { return decision_log_path(); }

std::string audit_line(const AuditRecord& r) {
    nlohmann::json j = {{"time", now_iso8601()}, {"agent", r.agent},     {"profile", r.profile},
                        {"session", r.session},  {"tool", r.tool},       {"verdict", r.verdict},
                        {"rule", r.rule},        {"reason", r.reason},   {"us", r.micros},
                        {"command", cut_utf8(r.command, kMaxCommand)}};
    if (!r.kind.empty()) j["kind"] = r.kind;
    if (!r.channel.empty()) j["channel"] = r.channel;
    if (!r.policy.empty()) j["policy"] = r.policy;
    if (!r.step.empty()) j["step"] = r.step;
    if (r.audit) {
        j["mode"] = "audit";
        j["answered"] = "allow";
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string append_audit(const AuditRecord& r) {
    std::string err = append_to_decision_log({audit_line(r)});
    return err.empty() ? "" : "toolcage: warning: audit log not written: " + err;
}

}  // namespace toolcage::hook
