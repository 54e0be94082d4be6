#include "fleet/syslog_message.h"

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace toolcage::fleet {

namespace {

constexpr int kFacility = 10;  // security/authorization messages (authpriv)

// OCSF severity_id to syslog severity: Informational 6, Low 5 (notice), Medium 4 (warning),
// High 3 (error), Critical 2, Fatal 1; Unknown and Other 5.
int syslog_severity(int severity_id) {
    switch (severity_id) {
        case 1:
            return 6;
        case 2:
            return 5;
        case 3:
            return 4;
        case 4:
            return 3;
        case 5:
            return 2;
        case 6:
            return 1;
        default:
            return 5;
    }
}

std::string timestamp(long long ms) {
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03lldZ", buf, ms % 1000);
    return out;
}

// PRINTUSASCII without spaces, at most `max` long; "-" when nothing is left (RFC 5424 NILVALUE).
std::string header_field(const std::string& s, std::size_t max) {
    std::string out;
    for (char c : s)
        if (c > 32 && c < 127 && out.size() < max) out += c;
    return out.empty() ? "-" : out;
}

long long integer(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

}  // namespace

std::string syslog_message(const nlohmann::json& event, const std::string& hostname, long pid) {
    int sev = syslog_severity(static_cast<int>(integer(event, "severity_id")));
    std::string msgid = "ocsf";
    switch (integer(event, "class_uid")) {
        case 2004:
            msgid = "detection_finding";
            break;
        case 1007:
            msgid = "process_activity";
            break;
        case 4001:
            msgid = "network_activity";
            break;
        case 4002:
            msgid = "http_activity";
            break;
        default:
            break;
    }
    return "<" + std::to_string(kFacility * 8 + sev) + ">1 " + timestamp(integer(event, "time")) +
           " " + header_field(hostname, 255) + " toolcage " + std::to_string(pid) + " " + msgid +
           " - " + event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string octet_counted(const std::string& message) {
    return std::to_string(message.size()) + " " + message;
}

}  // namespace toolcage::fleet
