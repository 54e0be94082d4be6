#include "relay/relay_log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "fleet/forward.h"

namespace toolcage::relay {
namespace {

std::string& step_tag() {
    static std::string s;
    return s;
}

// The log's file, for the events that wait for the collector beside it ("" for stderr).
std::string& log_file() {
    static std::string s;
    return s;
}

std::shared_ptr<spdlog::logger>& logger() {
    static std::shared_ptr<spdlog::logger> l;
    return l;
}

std::string now_iso8601() {
    auto now = std::chrono::system_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms.count()));
    return out;
}

std::string write(nlohmann::json j) {
    if (!step_tag().empty()) j["step"] = step_tag();
    auto& l = logger();
    if (!l) init_log("");
    // Replacement for invalid UTF-8 so a hostile target cannot make dump() throw.
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    l->info(line);
    return line;
}

}  // namespace

void init_log(const std::string& path) {
    std::shared_ptr<spdlog::logger> l;
    try {
        if (path.empty())
            l = std::make_shared<spdlog::logger>("relay",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
        else
            l = std::make_shared<spdlog::logger>(
                "relay", std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, false));
    } catch (const spdlog::spdlog_ex& e) {
        throw Error("--log " + path + ": " + e.what() +
                    " (give a path in a writable directory, or omit --log for stderr)");
    }
    l->set_pattern("%v");
    l->flush_on(spdlog::level::trace);
    logger() = l;
    log_file() = path;
}

void log_connect(const ConnectRecord& r) {
    nlohmann::json j;
    j["time"] = now_iso8601();
    j["event"] = "connect";
    j["client"] = r.client;
    j["host"] = r.host;
    j["port"] = r.port;
    j["verdict"] = r.verdict;
    j["status"] = r.status;
    j["reason"] = r.reason;
    j["mode"] = r.mode;
    if (!r.address.empty()) j["address"] = r.address;
    if (!r.server_name.empty()) j["server_name"] = r.server_name;
    j["bytes_up"] = r.bytes_up;
    j["bytes_down"] = r.bytes_down;
    j["ms"] = r.ms;
    // Each connection is also an event for the host's collector, if it names one.
    fleet::forward_to_collector({write(j)}, log_file());
}

void log_request(const RequestRecord& r) {
    nlohmann::json j;
    j["time"] = now_iso8601();
    j["event"] = "request";
    if (!r.client.empty()) j["client"] = r.client;
    j["host"] = r.host;
    j["method"] = r.method;
    j["path"] = r.path;
    j["verdict"] = r.verdict;
    if (r.status) j["status"] = r.status;
    if (!r.reason.empty()) j["reason"] = r.reason;
    if (!r.rule.empty()) j["rule"] = r.rule;
    if (r.credential) j["credential"] = true;
    if (!r.credential_host.empty())
        j["credential_binding"] = {{"host", r.credential_host}, {"kind", r.credential_kind}};
    // Each request read inside an inspected connection is an http_activity event too.
    fleet::forward_to_collector({write(j)}, log_file());
}

void log_event(const std::string& level, const std::string& event, const std::string& message) {
    nlohmann::json j;
    j["time"] = now_iso8601();
    j["level"] = level;
    j["event"] = event;
    j["message"] = message;
    write(j);
}

void set_log_step(const std::string& id) {
    step_tag() = id;
}

void flush_log() {
    if (logger()) logger()->flush();
}

}  // namespace toolcage::relay
