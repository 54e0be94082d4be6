// Host names as toolcage reads them, and the relay allowlist's entries: one grammar for the
// relay's --allow, a policy's relay.allow and the targets the relay is asked for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace toolcage {

// Checks a host name (no port) and returns its canonical form (lowercase, one trailing dot
// removed), or an error in `error`.
std::optional<std::string> canonical_hostname(std::string_view host, std::string& error);

// Whether `host` (canonical, no brackets) would be read as an IPv4 address by some resolver:
// anything inet_aton() accepts, or a name whose last label is numeric (1.2.3.4.5, 0x7f).
bool looks_like_ipv4(std::string_view host);

// Parses "123" into a port 1..65535 (no sign, no leading zero).
std::optional<uint16_t> parse_port(std::string_view text);

// An allowlist entry: `host`, `host:port`, `*.suffix[:port]` (port 443 when omitted), or an IP
// address written the one canonical way (`192.0.2.10`, `[2001:db8::1]:443`).
struct AllowEntry {
    std::string text;  // as written, for messages
    std::string host;  // canonical; for a wildcard the suffix after "*."
    bool wildcard = false;
    bool ip = false;  // an IP literal entry (canonical spelling); IPv6 without brackets
    uint16_t port = 443;
};

// The entry, or nullopt with `problem` saying what is wrong and how to write it.
std::optional<AllowEntry> read_allow_entry(std::string_view text, std::string& problem);

// The same, throwing toolcage::Error naming `where` (e.g. `--allow`, `relay.allow in
// forge.json`), the entry, the problem and the fix.
AllowEntry parse_allow_entry(std::string_view text, std::string_view where);

}  // namespace toolcage
