// Opening the relay's side of a tunnel. Direct mode resolves the name once, checks every
// answer (address_check.h) and connects to an address that passed, never resolving again.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <vector>

#include "common/address_range.h"
#include "relay/socket_io.h"
#include "relay/target.h"

namespace toolcage::relay {

struct DialOutcome {
    Fd fd;                 // connected, non-blocking; empty when refused
    int status = 0;        // 0 on success, else the HTTP status to answer (403, 502, 504)
    std::string reason;    // why, when refused
    std::string address;   // the address connected to (or tried last)
    std::string leftover;  // bytes the far side sent early (upstream mode), for the client
};

// Resolves `host` (a name or a literal) with the resolver's search list turned off, so no
// suffix is ever appended: the lookup is as absolute as a trailing-dot name.
// Returns the answers, or fills `error` (gai_strerror text).
std::vector<sockaddr_storage> resolve_absolute(const std::string& host, uint16_t port,
                                               std::string& error);

// Non-blocking connect to one address, waiting until `deadline`.
DialOutcome connect_address(const sockaddr_storage& addr, Clock::time_point deadline);

struct DirectOptions {
    bool allow_private = false;
    uint16_t relay_port = 0;
    std::vector<AddressRange> allow_ranges;  // non-public ranges this network owns
};

DialOutcome dial_direct(const Target& t, const DirectOptions& opt, Clock::time_point deadline);

}  // namespace toolcage::relay
