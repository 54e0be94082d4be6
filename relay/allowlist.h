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

// Entries are read by the one grammar of common/host_names.h.
using toolcage::AllowEntry;
using toolcage::parse_allow_entry;

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
