// A tunnel to an inspected host (relay.inspect): the relay ends the step's TLS with a leaf of
// toolcage's CA, opens its own verified TLS to the real server, and reads every HTTP/1.1 request
// (relay/inspect/request_stream.h): logged, judged by relay.requests, given its credential.
// Responses pass back unread. Runs on the connection's own thread until either side ends.
#pragma once

#include <chrono>
#include <string>

#include "relay/inspect/inspect_config.h"
#include "relay/relay_log.h"
#include "relay/socket_io.h"
#include "relay/target.h"

namespace toolcage::relay {

struct InspectedStart {
    Fd client;
    Fd server;
    std::string early;  // client bytes read after the CONNECT header (its ClientHello's start)
    ConnectRecord record;
    Clock::time_point accepted;
    Target target;
    bool require_sni = true;
    std::chrono::milliseconds handshake_timeout{10000};
    std::chrono::milliseconds idle_timeout{600000};
};

// Returns when the connection is over; logs its connect record.
void run_inspected(InspectedStart s, const InspectContext& ictx);

}  // namespace toolcage::relay
