// The relay's log: one JSON line per CONNECT (and per notable event), through spdlog, to
// --log FILE or stderr.
#pragma once

#include <cstdint>
#include <string>

namespace toolcage::relay {

struct ConnectRecord {
    std::string client;  // peer address
    std::string host;    // canonical host, or the raw target when it did not parse
    unsigned port = 0;
    std::string verdict;  // "allow" or "deny"
    int status = 0;       // HTTP status we answered
    std::string reason;
    std::string mode;         // "direct" or "upstream"
    std::string address;      // the address dialled (direct mode)
    std::string server_name;  // the name the client's TLS handshake gave, when it gave one
    uint64_t bytes_up = 0;    // client -> target
    uint64_t bytes_down = 0;  // target -> client
    uint64_t ms = 0;          // from accept to the end of the tunnel (or the refusal)
};

// One HTTP request read inside an inspected connection: what was asked, never a header's value.
// Also an OCSF http_activity event for the host's collector (fleet/ocsf_event.h), sent as the
// connection's own record is: the same process, the same path, no new socket or right.
struct RequestRecord {
    std::string client;  // the step's peer address, as the connection's record has it
    std::string host;    // host:port of the CONNECT
    std::string method;
    std::string path;         // without the query, which may carry a token
    std::string verdict;      // "allow" or "deny"
    int status = 0;           // 0 when forwarded; else the status we answered
    std::string reason;       // why refused
    std::string rule;         // the policy field that refused it (relay.requests[...].deny[0] ...)
    bool credential = false;  // the relay put a credential into it
    // The binding used, by host and kind ("bearer", "basic", "header") only: never the secret,
    // the placeholder, the basic user or the header's value.
    std::string credential_host;
    std::string credential_kind;
};

void log_request(const RequestRecord& r);

// Sets the sink; "" means stderr. Throws toolcage::Error if the file cannot be opened.
void init_log(const std::string& path);

void log_connect(const ConnectRecord& r);

// Every line written from now on carries "step": id (omitted when empty).
void set_log_step(const std::string& id);

// level: "info", "warn" or "error".
void log_event(const std::string& level, const std::string& event, const std::string& message);

void flush_log();

}  // namespace toolcage::relay
