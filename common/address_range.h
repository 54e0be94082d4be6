// CIDR ranges a policy names as its own although they are not public (relay.allow_ranges): read,
// checked against the addresses no range may ever open, and matched against a dialled address.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

namespace toolcage {

struct AddressRange {
    in6_addr net{};    // IPv4 ranges are held in their IPv4-mapped IPv6 form
    int bits = 0;      // prefix length in that 128-bit form
    std::string text;  // as written, e.g. "192.0.2.0/24"
};

// "a.b.c.d/n" or "x:y::/n", host bits zero. nullopt with `problem` set (what is wrong and the
// fix) for bad syntax, host bits set, or a range that holds an address no range may open (cloud
// metadata, link-local, multicast, broadcast, unspecified).
std::optional<AddressRange> parse_address_range(const std::string& text, std::string& problem);

// Whether `sa` (AF_INET or AF_INET6) lies in `range`.
bool range_contains(const AddressRange& range, const sockaddr* sa);

// The first of `ranges` holding `sa`, or nullptr.
const AddressRange* find_range(const std::vector<AddressRange>& ranges, const sockaddr* sa);

}  // namespace toolcage
