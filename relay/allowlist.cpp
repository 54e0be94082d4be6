#include "relay/allowlist.h"

#include <arpa/inet.h>

#include "common/error.h"

namespace toolcage::relay {

AllowEntry parse_allow_entry(std::string_view text, std::string_view where) {
    auto fail = [&](const std::string& problem) -> Error {
        return Error(std::string(where) + " \"" + std::string(text) + "\": " + problem);
    };
    AllowEntry e;
    e.text = std::string(text);
    std::string_view host = text;
    std::string_view port;
    bool has_port = false;
    if (text.empty()) throw fail("an entry is empty (write host, host:port or *.example.com)");
    if (text.front() == '[') {
        size_t close = text.find(']');
        if (close == std::string_view::npos)
            throw fail("'[' without ']' (write an IPv6 address as [2001:db8::1]:443)");
        host = text.substr(1, close - 1);
        std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') throw fail("expected ':port' after ']'");
            port = rest.substr(1);
            has_port = true;
        }
        in6_addr a{};
        std::string h(host);
        if (h.find('%') != std::string::npos)
            throw fail("zone ids are not accepted (name the address without %zone)");
        if (::inet_pton(AF_INET6, h.c_str(), &a) != 1)
            throw fail("the bracketed host is not an IPv6 address");
        char canon[INET6_ADDRSTRLEN];
        ::inet_ntop(AF_INET6, &a, canon, sizeof canon);
        if (h != canon)
            throw fail(std::string("write the IPv6 address in its canonical form: [") + canon + "]");
        e.host = canon;
        e.ip = true;
    } else {
        size_t colon = text.rfind(':');
        if (colon != std::string_view::npos) {
            host = text.substr(0, colon);
            port = text.substr(colon + 1);
            has_port = true;
            if (host.find(':') != std::string_view::npos)
                throw fail("an IPv6 address must be written in brackets, e.g. [2001:db8::1]:443");
        }
        if (host == "*" || host == "**")
            throw fail("a bare wildcard would allow every host (name a domain: *.example.com)");
        if (host.size() > 2 && host.substr(0, 2) == "*.") {
            e.wildcard = true;
            host.remove_prefix(2);
        }
        if (host.find('*') != std::string_view::npos)
            throw fail("'*' may only stand as the whole first label, as in *.example.com");
        std::string bare(host);
        if (!bare.empty() && bare.back() == '.') bare.pop_back();
        if (looks_like_ipv4(bare)) {
            if (e.wildcard) throw fail("a wildcard cannot cover IP addresses (name a domain)");
            in_addr a{};
            char canon[INET_ADDRSTRLEN] = "";
            if (::inet_pton(AF_INET, bare.c_str(), &a) == 1)
                ::inet_ntop(AF_INET, &a, canon, sizeof canon);
            if (bare != canon || bare.size() != host.size())
                throw fail("an IPv4 address must be written as a plain dotted quad, e.g. "
                           "192.0.2.10");
            e.host = canon;
            e.ip = true;
        } else {
            std::string error;
            auto canon = canonical_hostname(host, error);
            if (!canon) throw fail(error + " (write host, host:port or *.example.com)");
            e.host = *canon;
            if (e.wildcard && e.host.find('.') == std::string::npos)
                throw fail("a wildcard must name at least two labels (use *.example.com)");
        }
    }
    if (has_port) {
        auto p = parse_port(port);
        if (!p) throw fail("the port must be a number from 1 to 65535 without leading zeros");
        e.port = *p;
    }
    return e;
}

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
