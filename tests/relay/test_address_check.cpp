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
        {"240.0.0.1", AddressClass::forbidden},
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
        {"2001:db8::1", AddressClass::forbidden},
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
    CHECK(address_refusal(sa, false, own, 0));
    CHECK_FALSE(address_refusal(sa, true, own, 0));
    auto md = addr("169.254.169.254");
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&md), true, own, 0));
    auto mapped = addr("::ffff:169.254.169.254");
    CHECK(address_refusal(reinterpret_cast<sockaddr*>(&mapped), true, own, 0));
}

TEST_CASE("this machine's own addresses are refused, and the relay's port always") {
    auto own = own_addresses();
    REQUIRE_FALSE(own.empty());  // at least loopback
    auto lo = addr("127.0.0.1", 4000);
    auto* sa = reinterpret_cast<sockaddr*>(&lo);
    CHECK(is_own_address(sa, own));
    auto why = address_refusal(sa, true, own, 4000);
    REQUIRE(why);
    CHECK(why->find("relay itself") != std::string::npos);
    CHECK_FALSE(address_refusal(sa, true, own, 4001));
}
