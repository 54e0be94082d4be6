#include "relay/target.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace toolcage::relay {

std::string Target::authority() const {
    std::string h = family == AF_INET6 ? "[" + host + "]" : host;
    return h + ":" + std::to_string(port);
}

TargetParse parse_target(std::string_view text) {
    TargetParse out;
    auto fail = [&](std::string why) {
        out.error = std::move(why);
        return out;
    };
    if (text.empty()) return fail("the target is empty: send CONNECT host:port");
    for (unsigned char c : text)
        if (c <= 0x20 || c >= 0x7f)
            return fail("the target contains a space, control or non-ASCII byte");
    if (text.find('@') != std::string_view::npos)
        return fail("the target contains userinfo ('@'): send CONNECT host:port");
    if (text.find('%') != std::string_view::npos)
        return fail("the target contains '%' (percent-encoding or a zone id): send CONNECT "
                    "host:port");
    for (char bad : {'/', '\\', '?', '#'})
        if (text.find(bad) != std::string_view::npos)
            return fail(std::string("the target contains '") + bad +
                        "': send CONNECT host:port, with no scheme or path");

    Target t;
    std::string_view host;
    std::string_view port;
    if (text.front() == '[') {
        size_t close = text.find(']');
        if (close == std::string_view::npos)
            return fail("the target opens '[' without closing ']'");
        host = text.substr(1, close - 1);
        std::string_view rest = text.substr(close + 1);
        if (rest.empty() || rest.front() != ':')
            return fail("the target must be host:port (a port after ']')");
        port = rest.substr(1);
        std::string h(host);
        if (::inet_pton(AF_INET6, h.c_str(), &t.addr6) != 1)
            return fail("the target's bracketed host is not an IPv6 address");
        char canon[INET6_ADDRSTRLEN];
        ::inet_ntop(AF_INET6, &t.addr6, canon, sizeof canon);
        std::string lower;
        for (char c : h) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        t.host = canon;
        t.ip_literal = true;
        t.family = AF_INET6;
        t.canonical_ip = (lower == canon) && h == lower;
    } else {
        size_t colon = text.rfind(':');
        if (colon == std::string_view::npos)
            return fail("the target has no port: send CONNECT host:port");
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (host.find(':') != std::string_view::npos)
            return fail("an IPv6 target must be written in brackets: [addr]:port");
        if (host.find(']') != std::string_view::npos || host.find('[') != std::string_view::npos)
            return fail("the target has a stray bracket");
        // One trailing dot is dropped before any judgement, for names and numbers alike.
        bool trailing_dot = host.size() > 1 && host.back() == '.';
        std::string_view bare = trailing_dot ? host.substr(0, host.size() - 1) : host;
        if (looks_like_ipv4(bare)) {
            std::string h(bare);
            t.ip_literal = true;
            t.family = AF_INET;
            in_addr a{};
            if (::inet_aton(h.c_str(), &a) != 0) {
                t.addr4 = a;
                char canon[INET_ADDRSTRLEN];
                ::inet_ntop(AF_INET, &a, canon, sizeof canon);
                t.canonical_ip = (h == canon) && !trailing_dot;
                t.host = canon;
            } else {
                // Numeric-looking but not an address all parsers agree on: never allowed.
                t.host = h;
                t.canonical_ip = false;
            }
        } else {
            std::string error;
            auto canon = canonical_hostname(host, error);
            if (!canon) return fail("bad target host: " + error);
            t.host = *canon;
        }
    }
    auto p = parse_port(port);
    if (!p) return fail("the target's port must be a number from 1 to 65535 without leading zeros");
    t.port = *p;
    out.target = std::move(t);
    return out;
}

}  // namespace toolcage::relay
