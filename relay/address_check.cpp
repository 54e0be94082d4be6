#include "relay/address_check.h"

#include <arpa/inet.h>
#include <ifaddrs.h>

#include <chrono>
#include <cstring>
#include <mutex>

#include "common/error.h"

namespace toolcage::relay {
namespace {

struct V4Range {
    uint32_t net;
    int bits;
    AddressClass cls;
    const char* name;
};

constexpr uint32_t ip4(unsigned a, unsigned b, unsigned c, unsigned d) {
    return (a << 24) | (b << 16) | (c << 8) | d;
}

// Specific entries first: the first match wins. Metadata services sit inside ranges that
// --allow-private lifts, so they are listed before those ranges as never dialled. The reserved
// ranges are no one's on the internet, but a network may answer public names with them
// (split-horizon DNS, an intercepting proxy): an --allow-range naming them opens them.
const V4Range kV4Ranges[] = {
    {ip4(169, 254, 169, 254), 32, AddressClass::forbidden, "cloud metadata service"},
    {ip4(100, 100, 100, 200), 32, AddressClass::forbidden, "cloud metadata service"},
    {ip4(168, 63, 129, 16), 32, AddressClass::forbidden, "cloud platform wire server"},
    {ip4(255, 255, 255, 255), 32, AddressClass::forbidden, "broadcast"},
    {ip4(0, 0, 0, 0), 8, AddressClass::forbidden, "unspecified (this network)"},
    {ip4(127, 0, 0, 0), 8, AddressClass::private_range, "loopback"},
    {ip4(10, 0, 0, 0), 8, AddressClass::private_range, "private (RFC 1918)"},
    {ip4(172, 16, 0, 0), 12, AddressClass::private_range, "private (RFC 1918)"},
    {ip4(192, 168, 0, 0), 16, AddressClass::private_range, "private (RFC 1918)"},
    {ip4(100, 64, 0, 0), 10, AddressClass::private_range, "shared address space (CGNAT)"},
    {ip4(169, 254, 0, 0), 16, AddressClass::forbidden, "link-local"},
    {ip4(192, 0, 0, 0), 24, AddressClass::reserved, "IETF protocol assignments"},
    {ip4(192, 0, 2, 0), 24, AddressClass::reserved, "documentation"},
    {ip4(198, 51, 100, 0), 24, AddressClass::reserved, "documentation"},
    {ip4(203, 0, 113, 0), 24, AddressClass::reserved, "documentation"},
    {ip4(192, 88, 99, 0), 24, AddressClass::reserved, "6to4 relay anycast"},
    {ip4(198, 18, 0, 0), 15, AddressClass::reserved, "benchmarking"},
    {ip4(224, 0, 0, 0), 4, AddressClass::forbidden, "multicast"},
    {ip4(240, 0, 0, 0), 4, AddressClass::reserved, "reserved"},
};

std::string v4_text(uint32_t host_order) {
    in_addr a{htonl(host_order)};
    char text[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &a, text, sizeof text);
    return text;
}

AddressVerdict classify_v4(uint32_t a) {
    bool local = (a >> 24) == 127 || (a >> 24) == 0;
    for (const auto& r : kV4Ranges) {
        uint32_t mask = r.bits == 0 ? 0 : ~uint32_t{0} << (32 - r.bits);
        if ((a & mask) == r.net) return {r.cls, local, std::string(r.name) + " " + v4_text(a)};
    }
    return {AddressClass::global, false, v4_text(a)};
}

uint32_t v4_at(const in6_addr& a, int offset) {
    const uint8_t* b = a.s6_addr + offset;
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

bool prefix_is(const in6_addr& a, std::initializer_list<uint8_t> bytes) {
    size_t i = 0;
    for (uint8_t b : bytes)
        if (a.s6_addr[i++] != b) return false;
    return true;
}

std::string v6_text(const in6_addr& a) {
    char text[INET6_ADDRSTRLEN];
    ::inet_ntop(AF_INET6, &a, text, sizeof text);
    return text;
}

AddressVerdict embedded(const char* form, uint32_t v4) {
    AddressVerdict inner = classify_v4(v4);
    if (inner.cls == AddressClass::global) return inner;
    inner.what = std::string(form) + " embedding " + inner.what;
    return inner;
}

AddressVerdict classify_v6(const in6_addr& a) {
    static const in6_addr kAwsMetadata = [] {
        in6_addr x{};
        ::inet_pton(AF_INET6, "fd00:ec2::254", &x);
        return x;
    }();
    std::string text = v6_text(a);
    if (IN6_IS_ADDR_UNSPECIFIED(&a)) return {AddressClass::forbidden, true, "unspecified ::"};
    if (IN6_IS_ADDR_LOOPBACK(&a)) return {AddressClass::private_range, true, "loopback ::1"};
    if (IN6_IS_ADDR_V4MAPPED(&a)) return embedded("IPv4-mapped IPv6", v4_at(a, 12));
    if (IN6_IS_ADDR_V4COMPAT(&a)) return embedded("IPv4-compatible IPv6", v4_at(a, 12));
    if (prefix_is(a, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}))
        return embedded("NAT64 64:ff9b::/96", v4_at(a, 12));
    if (prefix_is(a, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}))
        return {AddressClass::private_range, false, "local-use NAT64 " + text};
    if (prefix_is(a, {0x20, 0x02})) return embedded("6to4 2002::/16", v4_at(a, 2));
    if (prefix_is(a, {0x20, 0x01, 0x00, 0x00}))
        return {AddressClass::forbidden, false, "Teredo (embeds an obfuscated IPv4) " + text};
    if (prefix_is(a, {0x20, 0x01, 0x0d, 0xb8})) return {AddressClass::reserved, false, "documentation " + text};
    if (prefix_is(a, {0x01, 0x00, 0, 0, 0, 0, 0, 0}))
        return {AddressClass::reserved, false, "discard-only " + text};
    if (std::memcmp(&a, &kAwsMetadata, sizeof a) == 0)
        return {AddressClass::forbidden, false, "cloud metadata service " + text};
    if (a.s6_addr[0] == 0xff) return {AddressClass::forbidden, false, "multicast " + text};
    if (a.s6_addr[0] == 0xfe && (a.s6_addr[1] & 0xc0) == 0x80)
        return {AddressClass::forbidden, false, "link-local " + text};
    if (a.s6_addr[0] == 0xfe && (a.s6_addr[1] & 0xc0) == 0xc0)
        return {AddressClass::private_range, false, "site-local " + text};
    if ((a.s6_addr[0] & 0xfe) == 0xfc) return {AddressClass::private_range, false, "unique local " + text};
    return {AddressClass::global, false, text};
}

in6_addr as_v6(const sockaddr* sa) {
    in6_addr out{};
    if (sa->sa_family == AF_INET6) return reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (sa->sa_family == AF_INET) {
        out.s6_addr[10] = 0xff;
        out.s6_addr[11] = 0xff;
        std::memcpy(out.s6_addr + 12, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
    }
    return out;
}

uint16_t port_of(const sockaddr* sa) {
    if (sa->sa_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
    if (sa->sa_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
    return 0;
}

}  // namespace

AddressVerdict classify_address(const sockaddr* sa) {
    if (sa->sa_family == AF_INET)
        return classify_v4(ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr));
    if (sa->sa_family == AF_INET6)
        return classify_v6(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
    return {AddressClass::forbidden, false, "an address of an unknown family"};
}

std::vector<in6_addr> own_addresses() {
    std::vector<in6_addr> out;
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) throw Error(syscall_error("getifaddrs(&list)", errno));
    for (ifaddrs* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr) continue;
        if (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6)
            out.push_back(as_v6(i->ifa_addr));
    }
    ::freeifaddrs(list);
    return out;
}

std::vector<in6_addr> own_addresses_cached() {
    static std::mutex mu;
    static std::vector<in6_addr> cached;
    static std::chrono::steady_clock::time_point read_at;
    std::lock_guard<std::mutex> lock(mu);
    auto now = std::chrono::steady_clock::now();
    if (cached.empty() || now - read_at >= std::chrono::seconds(1)) {
        cached = own_addresses();
        read_at = now;
    }
    return cached;
}

bool is_own_address(const sockaddr* sa, const std::vector<in6_addr>& own) {
    in6_addr a = as_v6(sa);
    for (const auto& o : own)
        if (std::memcmp(&a, &o, sizeof a) == 0) return true;
    return false;
}

std::optional<std::string> address_refusal(const sockaddr* sa, bool allow_private,
                                           const std::vector<AddressRange>& ranges,
                                           const std::vector<in6_addr>& own, uint16_t relay_port) {
    AddressVerdict v = classify_address(sa);
    bool own_addr = is_own_address(sa, own);
    if ((own_addr || v.reaches_this_machine) && port_of(sa) == relay_port)
        return "the address " + v.what + " port " + std::to_string(relay_port) +
               " is this relay itself";
    if (v.cls == AddressClass::forbidden)
        return "the host resolves to " + v.what + ", which is never dialled";
    const bool in_range =
        (v.cls != AddressClass::global || own_addr) && find_range(ranges, sa) != nullptr;
    const bool opened = in_range || (allow_private && v.cls == AddressClass::private_range);
    const std::string address = v.what.substr(v.what.rfind(' ') + 1);
    const std::string lift =
        " (if this network is yours and answers public names with such addresses, name its range "
        "in relay.allow_ranges, e.g. \"" + address +
        (address.find(':') == std::string::npos ? "/32" : "/128") + "\")";
    if (v.cls == AddressClass::reserved && !opened)
        return "the host resolves to " + v.what + ", which is not a public address" + lift;
    if (v.cls == AddressClass::private_range && !opened)
        return "the host resolves to " + v.what + ", which is refused" + lift;
    if (own_addr && !opened && !allow_private)
        return "the host resolves to " + v.what + ", one of this machine's own addresses" + lift;
    return std::nullopt;
}

}  // namespace toolcage::relay
