// The relay's host allowlist: `host`, `host:port` or `*.suffix[:port]` (port 443 when omitted).
// A wildcard matches whole labels only; IP literals pass only when an entry names that address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "relay/target.h"

namespace toolcage::relay {

struct AllowEntry {
    std::string text;   // as written, for messages
    std::string host;   // canonical; for a wildcard the suffix after "*."
    bool wildcard = false;
    bool ip = false;    // an IP literal entry (canonical spelling); IPv6 without brackets
    uint16_t port = 443;
};

// Parses one entry; `where` names its source for the error (e.g. `--allow`, `relay.allow in
// forge.json`). Throws toolcage::Error naming the entry, the problem and the fix.
AllowEntry parse_allow_entry(std::string_view text, std::string_view where);

class Allowlist {
public:
    Allowlist() = default;
    // Throws toolcage::Error on the first bad entry.
    static Allowlist parse(const std::vector<std::string>& entries, std::string_view where);

    // nullopt when `t` is allowed, else the reason it is refused.
    std::optional<std::string> refusal(const Target& t) const;

    const std::vector<AllowEntry>& entries() const { return entries_; }

private:
    std::vector<AllowEntry> entries_;
};

}  // namespace toolcage::relay
