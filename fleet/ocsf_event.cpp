#include "fleet/ocsf_event.h"

#include <cstdint>
#include <cstdio>
#include <ctime>

#include "common/decision_log_query.h"

namespace toolcage::fleet {

using nlohmann::json;

namespace {

// Enum values as the OCSF 1.8.0 dictionary names them (the caption goes beside the id).
struct Enum {
    int id;
    const char* caption;
};
constexpr Enum kInformational{1, "Informational"}, kLow{2, "Low"}, kMedium{3, "Medium"},
    kHigh{4, "High"};
constexpr Enum kAllowed{1, "Allowed"}, kDenied{2, "Denied"}, kObserved{3, "Observed"};
constexpr Enum kDispAllowed{1, "Allowed"}, kBlocked{2, "Blocked"}, kRestored{9, "Restored"},
    kDelayed{14, "Delayed"}, kDetected{15, "Detected"}, kLogged{17, "Logged"};
constexpr Enum kSuccess{1, "Success"}, kFailure{2, "Failure"};

void set(json& e, const char* key, Enum v) {
    e[std::string(key) + "_id"] = v.id;
    e[key] = v.caption;
}

// 128 bits of two FNV-1a hashes of the line, written as a UUID: the same line, the same uid.
std::string line_uid(std::string_view line) {
    auto fnv = [&](std::uint64_t h) {
        for (unsigned char c : line) {
            h ^= c;
            h *= 1099511628211ULL;
        }
        return h;
    };
    std::uint64_t a = fnv(14695981039346656037ULL), b = fnv(0x84222325cbf29ce4ULL ^ line.size());
    char out[40];
    std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                  static_cast<unsigned>(b >> 48),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return out;
}

std::string str(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

long long num(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

// The fields every class shares: class, category, activity, time, severity, metadata, device.
json base(int class_uid, const char* class_name, int category_uid, const char* category_name,
          Enum activity, Enum severity, long long time, const std::string& uid,
          const char* log_name, const std::string& original_time, const EventSource& src) {
    json e;
    e["class_uid"] = class_uid;
    e["class_name"] = class_name;
    e["category_uid"] = category_uid;
    e["category_name"] = category_name;
    e["activity_id"] = activity.id;
    e["activity_name"] = activity.caption;
    e["type_uid"] = static_cast<long long>(class_uid) * 100 + activity.id;
    e["type_name"] = std::string(class_name) + ": " + activity.caption;
    set(e, "severity", severity);
    e["time"] = time;
    e["metadata"] = {
        {"version", "1.8.0"},
        {"uid", uid},
        {"product", {{"name", "toolcage"}, {"vendor_name", "toolcage"}, {"version", src.version}}},
        {"profiles", {"security_control", "host"}},
        {"log_name", log_name},
        {"original_time", original_time}};
    e["device"] = {{"type_id", 0}, {"type", "Unknown"}};
    if (!src.hostname.empty()) e["device"]["hostname"] = src.hostname;
    return e;
}

// Drops empty strings from an `unmapped` object: a field the line did not have is absent.
json compact(json o) {
    for (auto it = o.begin(); it != o.end();) {
        if (it->is_null() || (it->is_string() && it->get<std::string>().empty()))
            it = o.erase(it);
        else
            ++it;
    }
    return o;
}

json actor_app(const std::string& name) {
    return {{"app_name", name.empty() ? "unknown" : name}};
}

json process_of(const std::string& command, const std::string& kind) {
    json p = json::object();
    if (!command.empty()) p["cmd_line"] = command;
    if (kind.empty() || kind == "shell") {
        auto programs = programs_of(command);
        if (!programs.empty()) p["name"] = programs.front();
    }
    return p;
}

// What a decision's line says that OCSF has no place for: who asked, in which session, how.
json decision_unmapped(const json& l) {
    json u = json::object();
    for (const char* k : {"verdict", "agent", "profile", "policy", "session", "tool", "kind",
                          "channel", "step", "mode"})
        if (!str(l, k).empty()) u[k] = str(l, k);
    return u;
}

// deny and ask (and, in audit mode, what would have been): a finding naming the rule.
json detection_finding(const json& l, long long t, const std::string& uid, const std::string& time,
                       const EventSource& src) {
    const std::string verdict = str(l, "verdict"), rule = str(l, "rule"), reason = str(l, "reason");
    // A held change (cage/integrity/change_store.h) is found as a tamper is: put back, kept for
    // a person to land.
    const bool held = str(l, "event") == "held";
    const bool tamper = str(l, "event") == "tamper" || held;
    const bool audit = str(l, "mode") == "audit";
    // What the agent wrote for its later sessions (Hermes's memory, skills…): reviewed as a
    // finding.
    const bool persisted = !str(l, "channel").empty();
    json e = base(2004, "Detection Finding", 2, "Findings", {1, "Create"},
                  tamper              ? kHigh
                  : verdict == "deny" ? kMedium
                                      : kLow,
                  t, uid, "decisions", time, src);
    set(e, "status", {1, "New"});
    if (tamper) {
        set(e, "action", kObserved);
        bool undone = held || flag(l, "undone");
        set(e, "disposition", undone ? kRestored : kDetected);
    } else if (audit) {
        set(e, "action", kObserved);  // audit mode: the agent was answered allow
        set(e, "disposition", kLogged);
    } else if (verdict == "deny") {
        set(e, "action", kDenied);
        set(e, "disposition", kBlocked);
    } else if (verdict == "allow") {  // a write into later sessions the policy lets through
        set(e, "action", kAllowed);
        set(e, "disposition", kLogged);
    } else {
        e["action_id"] = 99;  // ask: held for a person's approval
        e["action"] = "Ask";
        set(e, "disposition", kDelayed);
    }
    e["finding_info"] = {
        {"uid", uid},
        {"title", "toolcage " + verdict + ": " + (rule.empty() ? "(no rule)" : rule)},
        {"types",
         {held        ? "Held change"
          : tamper    ? "Tamper"
          : persisted ? "Persistence"
                      : "Tool call"}}};
    if (!reason.empty()) e["finding_info"]["desc"] = reason;
    e["message"] = reason.empty() ? verdict : reason;
    e["firewall_rule"] = {{"uid", rule}, {"name", rule}, {"type", tamper ? "cage" : "hook"}};
    if (!reason.empty()) e["firewall_rule"]["desc"] = reason;
    e["actor"] = actor_app(tamper ? "toolcage run" : str(l, "agent"));
    const std::string command = str(l, "command");
    if (!command.empty()) e["evidences"] = {{{"process", process_of(command, str(l, "kind"))}}};
    e["unmapped"] = decision_unmapped(l);
    for (const char* k : {"path", "change", "workspace"})  // a tamper line's
        if (!str(l, k).empty()) e["unmapped"][k] = str(l, k);
    return e;
}

// allow and cage: the step the decision launches (a read-only cage, or the cage).
json decision_launch(const json& l, long long t, const std::string& uid, const std::string& time,
                     const EventSource& src) {
    const std::string verdict = str(l, "verdict"), kind = str(l, "kind"), rule = str(l, "rule");
    const bool runs = kind.empty() || kind == "shell" || kind == "code";
    json e = base(1007, "Process Activity", 1, "System Activity",
                  runs ? Enum{1, "Launch"} : Enum{99, "Other"}, kInformational, t, uid, "decisions",
                  time, src);
    if (!runs) e["activity_name"] = str(l, "tool") + " call";
    set(e, "status", kSuccess);
    set(e, "action", kAllowed);
    if (verdict == "cage") {
        e["disposition_id"] = 99;
        e["disposition"] = "Caged";
    } else {
        set(e, "disposition", kDispAllowed);
    }
    e["process"] = process_of(str(l, "command"), kind);
    e["actor"] = actor_app(str(l, "agent"));
    e["message"] = verdict + (rule.empty() ? "" : " (" + rule + ")") +
                   (str(l, "reason").empty() ? "" : ": " + str(l, "reason"));
    if (!rule.empty()) e["firewall_rule"] = {{"uid", rule}, {"name", rule}, {"type", "hook"}};
    e["unmapped"] = decision_unmapped(l);
    if (l.contains("us") && l["us"].is_number_integer()) e["unmapped"]["hook_us"] = l["us"];
    return e;
}

// A caged or read-only step that ended: its exit status and what the cage refused.
json step_end(const json& l, long long t, const std::string& uid, const std::string& time,
              const EventSource& src) {
    const long long status = num(l, "status");
    const json refusals =
        l.contains("refusals") && l["refusals"].is_array() ? l["refusals"] : json::array();
    json e = base(1007, "Process Activity", 1, "System Activity", {2, "Terminate"},
                  refusals.empty() ? kInformational : kLow, t, uid, "decisions", time, src);
    set(e, "status", status == 0 ? kSuccess : kFailure);
    e["exit_code"] = status;
    set(e, "action", kAllowed);
    set(e, "disposition", refusals.empty() ? kDispAllowed : kBlocked);
    e["process"] = process_of(str(l, "command"), "");
    e["actor"] = actor_app("toolcage run");
    std::string detail;
    for (const auto& r : refusals) {
        std::string what = r.is_object() ? str(r, "access") + " " + str(r, "target") : r.dump();
        detail += (detail.empty() ? "refused: " : "; ") + what;
    }
    if (!detail.empty()) e["status_detail"] = detail;
    e["message"] = std::string(flag(l, "read_only") ? "read-only step" : "caged step") +
                   " exited with status " + std::to_string(status) +
                   (refusals.empty() ? "" : ", " + std::to_string(refusals.size()) + " refused");
    e["unmapped"] = compact({{"step", str(l, "step")},
                             {"policy", str(l, "profile")},
                             {"workspace", str(l, "workspace")},
                             {"network", str(l, "network")}});
    for (const char* k : {"read_only", "relay"})
        if (l.contains(k) && l[k].is_boolean()) e["unmapped"][k] = l[k];
    if (l.contains("landlock_abi") && l["landlock_abi"].is_number_integer())
        e["unmapped"]["landlock_abi"] = l["landlock_abi"];
    if (!refusals.empty()) e["unmapped"]["refusals"] = refusals;
    return e;
}

// "127.0.0.1:4000" or "[::1]:4000" as an endpoint.
json endpoint_of(const std::string& addr) {
    json p = json::object();
    auto colon = addr.rfind(':');
    if (colon == std::string::npos) return p;
    std::string ip = addr.substr(0, colon), port = addr.substr(colon + 1);
    if (ip.size() >= 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
    if (!ip.empty()) p["ip"] = ip;
    try {
        int n = std::stoi(port);
        if (n >= 0 && n <= 65535) p["port"] = n;
    } catch (const std::exception&) {
    }
    return p;
}

// A CONNECT the relay let through or refused.
json relay_connect(const json& l, long long t, const std::string& uid, const std::string& time,
                   const EventSource& src) {
    const bool allowed = str(l, "verdict") == "allow";
    const std::string host = str(l, "host"), reason = str(l, "reason");
    const long long port = num(l, "port");
    json e = base(4001, "Network Activity", 4, "Network Activity",
                  allowed ? Enum{1, "Open"} : Enum{5, "Refuse"}, allowed ? kInformational : kMedium,
                  t, uid, "relay", time, src);
    set(e, "status", allowed ? kSuccess : kFailure);
    set(e, "action", allowed ? kAllowed : kDenied);
    set(e, "disposition", allowed ? kDispAllowed : kBlocked);
    e["status_code"] = std::to_string(num(l, "status"));
    if (!reason.empty()) e["status_detail"] = reason;
    e["dst_endpoint"] = json::object();
    if (!host.empty()) e["dst_endpoint"]["hostname"] = host;
    if (port > 0 && port <= 65535) e["dst_endpoint"]["port"] = port;
    json client = endpoint_of(str(l, "client"));
    if (!client.empty()) e["src_endpoint"] = client;
    e["duration"] = num(l, "ms");
    e["actor"] = actor_app("toolcage-relay");
    e["message"] = std::string("CONNECT ") + (allowed ? "allowed " : "refused ") + host + ":" +
                   std::to_string(port) + (reason.empty() ? "" : " (" + reason + ")");
    e["unmapped"] = compact(
        {{"step", str(l, "step")}, {"mode", str(l, "mode")}, {"address", str(l, "address")}});
    e["unmapped"]["bytes_up"] = num(l, "bytes_up");
    e["unmapped"]["bytes_down"] = num(l, "bytes_down");
    return e;
}

// The activity of http_activity (4002) for a request's method; others are Other (99).
Enum http_activity_of(const std::string& method) {
    static constexpr struct {
        const char* method;
        Enum activity;
    } kMethods[] = {
        {"CONNECT", {1, "Connect"}}, {"DELETE", {2, "Delete"}},   {"GET", {3, "Get"}},
        {"HEAD", {4, "Head"}},       {"OPTIONS", {5, "Options"}}, {"POST", {6, "Post"}},
        {"PUT", {7, "Put"}},         {"TRACE", {8, "Trace"}},     {"PATCH", {9, "Patch"}}};
    for (const auto& m : kMethods)
        if (method == m.method) return m.activity;
    return {99, "Other"};
}

// One HTTP request the relay read inside an inspected connection, forwarded or refused. The line
// holds no query and no header value (relay/relay_log.h), so neither can the event: the url is
// scheme, host, port and path; a credential is named by its binding's host and kind.
json relay_request(const json& l, long long t, const std::string& uid, const std::string& time,
                   const EventSource& src) {
    const bool allowed = str(l, "verdict") == "allow";
    const std::string method = str(l, "method"), path = str(l, "path"), reason = str(l, "reason"),
                      rule = str(l, "rule");
    json dst = endpoint_of(str(l, "host"));  // "host:port": the host is a name, not an ip
    std::string host = dst.contains("ip") ? dst["ip"].get<std::string>() : str(l, "host");
    const long long port = dst.contains("port") ? dst["port"].get<long long>() : 443;
    const Enum activity = http_activity_of(method);
    json e = base(4002, "HTTP Activity", 4, "Network Activity", activity,
                  allowed ? kInformational : kMedium, t, uid, "relay", time, src);
    if (activity.id == 99 && !method.empty()) e["activity_name"] = method;
    set(e, "status", allowed ? kSuccess : kFailure);
    set(e, "action", allowed ? kAllowed : kDenied);
    set(e, "disposition", allowed ? kDispAllowed : kBlocked);
    const std::string url =
        "https://" + host + (port == 443 ? "" : ":" + std::to_string(port)) + path;
    json u = {{"scheme", "https"}, {"hostname", host}, {"port", port}, {"url_string", url}};
    if (!path.empty()) u["path"] = path;
    e["http_request"] = {{"url", u}};
    if (!method.empty()) e["http_request"]["http_method"] = method;
    const long long status = num(l, "status");
    if (status > 0) {  // the relay's own answer; a forwarded request's goes back unread
        e["http_response"] = {{"code", status}};
        e["http_status"] = status;
        e["status_code"] = std::to_string(status);
    }
    if (!reason.empty()) e["status_detail"] = reason;
    if (!rule.empty()) e["firewall_rule"] = {{"uid", rule}, {"name", rule}, {"type", "relay"}};
    e["dst_endpoint"] = {{"hostname", host}, {"port", port}};
    json client = endpoint_of(str(l, "client"));
    if (!client.empty()) e["src_endpoint"] = client;
    e["actor"] = actor_app("toolcage-relay");
    e["app_protocol_name"] = "http";
    e["message"] = method + " " + url + (allowed ? " forwarded" : " refused") +
                   (reason.empty() ? "" : " (" + reason + ")");
    e["unmapped"] = compact({{"step", str(l, "step")}});
    if (auto it = l.find("credential_binding"); it != l.end() && it->is_object())
        e["unmapped"]["credential_binding"] =
            compact({{"host", str(*it, "host")}, {"kind", str(*it, "kind")}});
    return e;
}

}  // namespace

std::optional<long long> epoch_ms(std::string_view s) {
    // YYYY-MM-DDTHH:MM:SS[.mmm]Z
    if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || s.back() != 'Z')
        return std::nullopt;
    auto digits = [&](std::size_t pos, std::size_t n) -> int {
        int v = 0;
        for (std::size_t i = pos; i < pos + n; ++i) {
            if (s[i] < '0' || s[i] > '9') return -1;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    std::tm tm{};
    tm.tm_year = digits(0, 4) - 1900;
    tm.tm_mon = digits(5, 2) - 1;
    tm.tm_mday = digits(8, 2);
    tm.tm_hour = digits(11, 2);
    tm.tm_min = digits(14, 2);
    tm.tm_sec = digits(17, 2);
    int ms = 0;
    if (s.size() == 24 && s[19] == '.')
        ms = digits(20, 3);
    else if (s.size() != 20)
        return std::nullopt;
    if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 ||
        tm.tm_sec > 60 || ms < 0)
        return std::nullopt;
    return static_cast<long long>(timegm(&tm)) * 1000 + ms;
}

std::optional<json> ocsf_event(std::string_view line, const EventSource& source) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    json l = json::parse(line.begin(), line.end(), nullptr, false);
    if (!l.is_object()) return std::nullopt;
    const std::string time = str(l, "time");
    auto t = epoch_ms(time);
    if (!t) return std::nullopt;
    const std::string uid = line_uid(line), event = str(l, "event"), verdict = str(l, "verdict");
    if (event == "connect") return relay_connect(l, *t, uid, time, source);
    if (event == "request") return relay_request(l, *t, uid, time, source);
    if (event == "step") return step_end(l, *t, uid, time, source);
    if (event == "tamper" || event == "held") return detection_finding(l, *t, uid, time, source);
    if (!event.empty())
        return std::nullopt;  // the relay's notices, and lines of kinds not known here
    if (verdict == "deny" || verdict == "ask" || !str(l, "channel").empty())
        return detection_finding(l, *t, uid, time, source);
    if (verdict == "allow" || verdict == "cage") return decision_launch(l, *t, uid, time, source);
    return std::nullopt;
}

}  // namespace toolcage::fleet
