// One client connection, from accept to a running tunnel or a refusal: read the CONNECT,
// authenticate, check the target, dial, answer, and hand the pair to the pump.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/address_range.h"
#include "relay/allowlist.h"
#include "relay/auth.h"
#include "relay/inspect/inspect_config.h"
#include "relay/pump.h"
#include "relay/socket_io.h"
#include "relay/upstream.h"

namespace toolcage::relay {

struct SessionContext {
    Allowlist allowlist;
    TokenAuth auth;
    std::optional<UpstreamProxy> upstream;  // empty: direct mode
    bool allow_private = false;
    std::vector<AddressRange> allow_ranges;
    uint16_t relay_port = 0;
    // relay.require_sni: a TLS handshake without a server name is refused (relay/handshake/).
    bool require_sni = true;
    std::chrono::milliseconds header_timeout{10000};
    std::chrono::milliseconds connect_timeout{10000};
    // relay.inspect and what goes with it (--inspect-file); null: every tunnel is opaque.
    std::shared_ptr<const InspectContext> inspect;
    std::chrono::milliseconds handshake_timeout{10000};
    std::chrono::milliseconds idle_timeout{600000};
    Pump* pump = nullptr;
    // Called when the connection ends without becoming a tunnel (a tunnel's end is the pump's).
    std::function<void()> on_refused;
};

// Runs on its own thread; owns `client` and always ends by closing it or handing it on.
void handle_client(Fd client, std::string peer, Clock::time_point accepted,
                   const SessionContext& ctx);

// Whether the target names the relay's own listening socket by a local name or address.
bool names_relay_itself(const Target& t, uint16_t relay_port);

}  // namespace toolcage::relay
