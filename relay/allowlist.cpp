#include "relay/allowlist.h"

#include <arpa/inet.h>

#include "common/error.h"

namespace toolcage::relay {

Allowlist Allowlist::parse(const std::vector<std::string>& entries, std::string_view where) {
    Allowlist list;
    for (const auto& text : entries) list.entries_.push_back(parse_allow_entry(text, where));
    return list;
}

std::optional<std::string> Allowlist::refusal(const Target& t) const {
    if (t.ip_literal) {
        if (!t.canonical_ip)
            return "the target " + t.authority() +
                   " is an IP address in a non-canonical spelling; name the host";
        for (const auto& e : entries_)
            if (e.ip && e.host == t.host && e.port == t.port) return std::nullopt;
        return "the target " + t.authority() +
               " is an IP address that no --allow entry names; name the host instead";
    }
    for (const auto& e : entries_) {
        if (e.ip || e.port != t.port) continue;
        if (!e.wildcard && e.host == t.host) return std::nullopt;
        // Label boundary: the host must end with ".suffix" and have a label before it.
        if (e.wildcard && t.host.size() > e.host.size() + 1 &&
            t.host.compare(t.host.size() - e.host.size(), e.host.size(), e.host) == 0 &&
            t.host[t.host.size() - e.host.size() - 1] == '.')
            return std::nullopt;
    }
    return "the host " + t.authority() + " is not on the allowlist";
}

}  // namespace toolcage::relay
