// What a CONNECT names: `host:port`, checked and put in canonical form (lowercase, one trailing
// dot removed). IP literals in any spelling are recognised here so the allowlist can refuse them.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// Checks a host name (no port) and returns its canonical form, or an error in `error`.
// Used for targets and allowlist entries alike, so both are judged by one rule.
std::optional<std::string> canonical_hostname(std::string_view host, std::string& error);

// Whether `host` (canonical, no brackets) would be read as an IPv4 address by some resolver:
// anything inet_aton() accepts, or a name whose last label is numeric (1.2.3.4.5, 0x7f).
bool looks_like_ipv4(std::string_view host);

// Parses "123" into a port 1..65535 (no sign, no leading zero).
std::optional<uint16_t> parse_port(std::string_view text);

}  // namespace toolcage::relay
