// Which resolved addresses direct mode may dial.
#include <arpa/inet.h>

#include <catch2/catch.hpp>

#include "relay/address_check.h"

using namespace toolcage::relay;

static sockaddr_storage addr(const char* text, uint16_t port = 443) {
    sockaddr_storage ss{};
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (::inet_pton(AF_INET, text, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
    } else {
        REQUIRE(::inet_pton(AF_INET6, text, &in6->sin6_addr) == 1);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
    }
    return ss;
}

static AddressClass cls(const char* text) {
    auto a = addr(text);
    return classify_address(reinterpret_cast<sockaddr*>(&a)).cls;
}

TEST_CASE("address classes") {
    struct {
        const char* a;
        AddressClass c;
    } cases[] = {
        {"93.184.216.34", AddressClass::global},
        {"2606:2800:220:1:248:1893:25c8:1946", AddressClass::global},
        {"127.0.0.1", AddressClass::private_range},
        {"127.255.0.9", AddressClass::private_range},
        {"10.1.2.3", AddressClass::private_range},
        {"172.16.0.1", AddressClass::private_range},
        {"172.31.255.255", AddressClass::private_range},
        {"172.32.0.1", AddressClass::global},
        {"192.168.1.1", AddressClass::private_range},
        {"100.64.0.1", AddressClass::private_range},
        {"100.100.100.200", AddressClass::forbidden},  // metadata inside CGNAT
        {"169.254.169.254", AddressClass::forbidden},
        {"169.254.1.1", AddressClass::forbidden},
        {"0.0.0.0", AddressClass::forbidden},
        {"224.0.0.1", AddressClass::forbidden},
        {"255.255.255.255", AddressClass::forbidden},
        {"240.0.0.1", AddressClass::reserved},
        {"192.0.2.10", AddressClass::reserved},  // documentation
        {"198.18.0.1", AddressClass::reserved},  // benchmarking
        {"::", AddressClass::forbidden},
        {"::1", AddressClass::private_range},
        {"::ffff:127.0.0.1", AddressClass::private_range},
        {"::ffff:169.254.169.254", AddressClass::forbidden},
        {"::ffff:10.0.0.1", AddressClass::private_range},
        {"::ffff:93.184.216.34", AddressClass::global},
        {"::10.0.0.1", AddressClass::private_range},
        {"64:ff9b::a00:1", AddressClass::private_range},     // NAT64 of 10.0.0.1
        {"64:ff9b::a9fe:a9fe", AddressClass::forbidden},     // NAT64 of metadata
        {"2002:7f00:1::", AddressClass::private_range},      // 6to4 of 127.0.0.1
        {"2002:a9fe:a9fe::1", AddressClass::forbidden},      // 6to4 of 169.254.169.254
        {"2001:0:4136:e378:8000:63bf:3fff:fdd2", AddressClass::forbidden},  // Teredo
        {"fc00::1", AddressClass::private_range},
        {"fd12:3456::1", AddressClass::private_range},
        {"fd00:ec2::254", AddressClass::forbidden},
        {"fe80::1", AddressClass::forbidden},
        {"ff02::1", AddressClass::forbidden},
        {"2001:db8::1", AddressClass::reserved},
    };
    for (const auto& c : cases) {
        INFO(c.a);
        CHECK(cls(c.a) == c.c);
    }
}

TEST_CASE("--allow-private lifts private ranges, never metadata or link-local") {
    std::vector<in6_addr> own;
    auto lo = addr("127.0.0.1");
    auto* sa = reinterpret_cast<sockaddr*>(&lo);
    CHECK(address_refusal(sa, false, {}, own, 0));
    CHECK_FALSE(address_refusal(sa, true, {}, own, 0));
    auto md = addr("169.254.169.254");
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&md), true, {}, own, 0));
    auto mapped = addr("::ffff:169.254.169.254");
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&mapped), true, {}, own, 0));
}

TEST_CASE("this machine's own addresses are refused, and the relay's port always") {
    auto own = own_addresses();
    REQUIRE_FALSE(own.empty());  // at least loopback
    auto lo = addr("127.0.0.1", 4000);
    auto* sa = reinterpret_cast<sockaddr*>(&lo);
    CHECK(is_own_address(sa, own));
    auto why = address_refusal(sa, true, {}, own, 4000);
    REQUIRE(why);
    CHECK(why->find("relay itself") != std::string::npos);
    CHECK_FALSE(address_refusal(sa, true, {}, own, 4001));
}

static toolcage::AddressRange range(const char* text) {
    std::string problem;
    auto r = toolcage::parse_address_range(text, problem);
    INFO(problem);
    REQUIRE(r);
    return *r;
}

TEST_CASE("an allow range opens the private and reserved addresses it holds, and only those") {
    std::vector<in6_addr> own;
    auto doc = addr("192.0.2.10");  // a documentation address, as a split-horizon resolver answers
    auto* sa = reinterpret_cast<sockaddr*>(&doc);
    auto why = address_refusal(sa, true, {}, own, 0);  // --allow-private does not open it
    REQUIRE(why);
    CHECK(why->find("relay.allow_ranges") != std::string::npos);  // the refusal names the remedy
    CHECK(why->find("192.0.2.10/32") != std::string::npos);
    CHECK_FALSE(address_refusal(sa, false, {range("192.0.2.0/24")}, own, 0));
    CHECK(address_refusal(sa, false, {range("192.0.3.0/24")}, own, 0));  // a neighbour: still refused
    auto ten = addr("10.1.2.3");
    CHECK_FALSE(address_refusal(reinterpret_cast<sockaddr*>(&ten), false, {range("10.1.0.0/16")}, own, 0));
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&ten), false, {range("10.2.0.0/16")}, own, 0));
    auto v6 = addr("fd12:3456::7");
    CHECK_FALSE(address_refusal(reinterpret_cast<sockaddr*>(&v6), false, {range("fd12:3456::/32")}, own, 0));
    // IPv4 written as IPv4-mapped IPv6 is the same address.
    auto mapped = addr("::ffff:192.0.2.10");
    CHECK_FALSE(address_refusal(reinterpret_cast<sockaddr*>(&mapped), false, {range("192.0.2.0/24")}, own, 0));
    // A forbidden address is never opened, even by a range a test builds around it by hand.
    auto md = addr("169.254.169.254");
    toolcage::AddressRange around{};
    around.net.s6_addr[10] = around.net.s6_addr[11] = 0xff;
    around.bits = 96;
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&md), true, {around}, own, 0));
    // The relay's own port stays refused inside a range.
    auto lo = addr("127.0.0.1", 4000);
    auto self = address_refusal(reinterpret_cast<sockaddr*>(&lo), false, {range("127.0.0.0/8")},
                                own_addresses(), 4000);
    REQUIRE(self);
    CHECK(self->find("relay itself") != std::string::npos);
}

TEST_CASE("allow ranges are read strictly: syntax, host bits, never-dialled addresses") {
    for (const char* bad : {"192.0.2.0", "192.0.2.0/", "192.0.2.0/33", "192.0.2.1/24", "10.0.0.0/x",
                            "example.com/24", "0.0.0.0/0", "169.254.0.0/16", "169.0.0.0/8",
                            "100.100.100.200/32", "224.0.0.0/8", "::/0", "fe80::/64", "ff00::/8",
                            "fd00:ec2::/32", "::ffff:0.0.0.0/96", "fd00::/129", "10.0.0.0/0008",
                            "10.0.0.0/-8", "192.0.2.0/24 "}) {
        INFO(bad);
        std::string problem;
        CHECK_FALSE(toolcage::parse_address_range(bad, problem));
        CHECK_FALSE(problem.empty());
    }
    for (const char* good : {"192.0.2.0/24", "10.0.0.0/8", "127.0.0.0/8", "203.0.113.7/32",
                             "fd12:3456::/48", "2001:db8::/32"}) {
        INFO(good);
        std::string problem;
        CHECK(toolcage::parse_address_range(good, problem));
    }
}
