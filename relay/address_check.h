// Which resolved addresses the relay may dial in direct mode. A name on the allowlist can still
// resolve to this machine, a private network or a cloud metadata service; those are refused.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

#include "common/address_range.h"

namespace toolcage::relay {

enum class AddressClass {
    global,         // fine to dial
    private_range,  // loopback, RFC 1918, CGNAT, ULA, site-local: lifted by --allow-private
                    // or by an --allow-range that holds the address
    reserved,       // documentation, benchmarking, reserved: only an --allow-range opens it
                    // (a network that answers public names with such addresses)
    forbidden,      // unspecified, link-local, metadata, multicast, broadcast: never
};

struct AddressVerdict {
    AddressClass cls = AddressClass::global;
    bool reaches_this_machine = false;  // loopback or unspecified
    std::string what;  // e.g. "loopback 127.0.0.1", "IPv4-mapped IPv6 embedding private 10.0.0.1"
};

// Classifies one address. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64
// 64:ff9b::/96, 6to4 2002::/16) are judged by the address they embed.
AddressVerdict classify_address(const sockaddr* sa);

// This machine's own addresses (getifaddrs), as 16-byte IPv6 (IPv4 mapped) for comparison.
std::vector<in6_addr> own_addresses();

// The same, read again at most once a second: getifaddrs() costs more than the rest of a
// CONNECT's checks together, and addresses change far less often than connections arrive.
std::vector<in6_addr> own_addresses_cached();

// True when `sa` is one of `own` (IPv4 compared through its mapped form).
bool is_own_address(const sockaddr* sa, const std::vector<in6_addr>& own);

// The whole direct-mode rule for one resolved address: nullopt when it may be dialled, else
// why not. `relay_port` guards against a tunnel back into the relay itself; `ranges` (the
// policy's relay.allow_ranges) open the private and reserved addresses they hold, never a
// forbidden one. A refusal a range could lift says so.
std::optional<std::string> address_refusal(const sockaddr* sa, bool allow_private,
                                           const std::vector<AddressRange>& ranges,
                                           const std::vector<in6_addr>& own, uint16_t relay_port);

}  // namespace toolcage::relay
