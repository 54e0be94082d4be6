#include "common/address_range.h"

#include <arpa/inet.h>

#include <cstring>

namespace toolcage {
namespace {

in6_addr mapped(const in_addr& v4) {
    in6_addr out{};
    out.s6_addr[10] = 0xff;
    out.s6_addr[11] = 0xff;
    std::memcpy(out.s6_addr + 12, &v4, 4);
    return out;
}

bool prefix_equal(const in6_addr& a, const in6_addr& b, int bits) {
    int whole = bits / 8, rest = bits % 8;
    if (std::memcmp(a.s6_addr, b.s6_addr, static_cast<std::size_t>(whole)) != 0) return false;
    if (rest == 0) return true;
    auto mask = static_cast<uint8_t>(0xff << (8 - rest));
    return (a.s6_addr[whole] & mask) == (b.s6_addr[whole] & mask);
}

bool host_bits_zero(const in6_addr& a, int bits) {
    for (int i = bits; i < 128; ++i)
        if (a.s6_addr[i / 8] & (0x80 >> (i % 8))) return false;
    return true;
}

// Never dialled, whatever a range says: what reaches a cloud's metadata service or no single
// host. IPv4 entries are written mapped.
struct Never {
    const char* net;
    int bits;
    const char* what;
};
constexpr Never kNever[] = {
    {"::ffff:169.254.0.0", 112, "link-local 169.254.0.0/16 (cloud metadata lives there)"},
    {"::ffff:100.100.100.200", 128, "the cloud metadata service 100.100.100.200"},
    {"::ffff:168.63.129.16", 128, "the cloud platform wire server 168.63.129.16"},
    {"::ffff:0.0.0.0", 104, "the unspecified range 0.0.0.0/8"},
    {"::ffff:224.0.0.0", 100, "multicast 224.0.0.0/4"},
    {"::ffff:255.255.255.255", 128, "broadcast 255.255.255.255"},
    {"::", 128, "the unspecified address ::"},
    {"fe80::", 10, "IPv6 link-local fe80::/10"},
    {"ff00::", 8, "IPv6 multicast ff00::/8"},
    {"fd00:ec2::254", 128, "the cloud metadata service fd00:ec2::254"},
};

}  // namespace

std::optional<AddressRange> parse_address_range(const std::string& text, std::string& problem) {
    const std::string fix = "write a CIDR range such as \"192.0.2.0/24\" or \"fd12:3456::/48\"";
    auto slash = text.find('/');
    if (slash == std::string::npos || slash + 1 >= text.size() || slash + 4 < text.size() ||
        text.find_first_not_of("0123456789", slash + 1) != std::string::npos) {
        problem = "\"" + text + "\" is not a CIDR range (ADDRESS/PREFIX); " + fix;
        return std::nullopt;
    }
    const std::string addr = text.substr(0, slash);
    const int prefix = std::stoi(text.substr(slash + 1));
    AddressRange r;
    r.text = text;
    in_addr v4{};
    if (::inet_pton(AF_INET, addr.c_str(), &v4) == 1) {
        if (prefix > 32) {
            problem = "\"" + text + "\": an IPv4 prefix is at most 32; " + fix;
            return std::nullopt;
        }
        r.net = mapped(v4);
        r.bits = 96 + prefix;
    } else if (::inet_pton(AF_INET6, addr.c_str(), &r.net) == 1) {
        if (prefix > 128) {
            problem = "\"" + text + "\": an IPv6 prefix is at most 128; " + fix;
            return std::nullopt;
        }
        r.bits = prefix;
    } else {
        problem = "\"" + addr + "\" is not an IPv4 or IPv6 address; " + fix;
        return std::nullopt;
    }
    if (!host_bits_zero(r.net, r.bits)) {
        problem = "\"" + text + "\" has bits set after its prefix; write the range's first address "
                  "(e.g. \"10.1.0.0/16\", not \"10.1.2.3/16\")";
        return std::nullopt;
    }
    for (const auto& n : kNever) {
        in6_addr never{};
        ::inet_pton(AF_INET6, n.net, &never);
        // Two prefixes intersect when they agree on the shorter one's bits.
        if (prefix_equal(r.net, never, std::min(r.bits, n.bits))) {
            problem = "\"" + text + "\" holds " + n.what +
                      ", which the relay never dials; name only the range of your own network";
            return std::nullopt;
        }
    }
    return r;
}

bool range_contains(const AddressRange& range, const sockaddr* sa) {
    in6_addr a{};
    if (sa->sa_family == AF_INET)
        a = mapped(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr);
    else if (sa->sa_family == AF_INET6)
        a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    else
        return false;
    return prefix_equal(a, range.net, range.bits);
}

const AddressRange* find_range(const std::vector<AddressRange>& ranges, const sockaddr* sa) {
    for (const auto& r : ranges)
        if (range_contains(r, sa)) return &r;
    return nullptr;
}

}  // namespace toolcage
