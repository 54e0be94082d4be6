// What a CONNECT names: `host:port`, checked and put in canonical form (lowercase, one trailing
// dot removed). IP literals in any spelling are recognised here so the allowlist can refuse them.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/host_names.h"

namespace toolcage::relay {

struct Target {
    std::string host;  // canonical; an IPv6 literal without its brackets
    uint16_t port = 0;
    // Set when the host is an IP literal in any spelling (127.1, 2130706433, 0x7f.1, [::1]).
    bool ip_literal = false;
    // For IP literals: whether it is written the one canonical way (dotted quad, inet_ntop form).
    bool canonical_ip = false;
    int family = 0;  // AF_INET or AF_INET6 for IP literals
    in6_addr addr6{};
    in_addr addr4{};

    // host:port as sent upstream and logged ([v6]:port).
    std::string authority() const;
};

struct TargetParse {
    std::optional<Target> target;
    std::string error;  // why it was refused, when target is empty
};

// Parses a CONNECT target. Refuses userinfo, '%', '/', '\', '?', '#', spaces, control and
// non-ASCII bytes, a missing or malformed port, and malformed host names.
TargetParse parse_target(std::string_view text);

// The host-name grammar shared with the allowlist and the policy schema.
using toolcage::canonical_hostname;
using toolcage::looks_like_ipv4;
using toolcage::parse_port;

}  // namespace toolcage::relay
