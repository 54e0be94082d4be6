// The decision on a tunnel's first client bytes, on real ClientHellos made by OpenSSL's client.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "relay/handshake/client_hello.h"
#include "relay/handshake/first_bytes.h"
#include "relay_harness.h"

using namespace toolcage::relay;
using Action = FirstBytesVerdict::Action;

namespace {

std::string client_hello(std::optional<std::string> sni, bool ech = false) {
    return relaytest::tls_client_hello(sni, ech);
}

// The same handshake message re-framed into records of at most `size` bytes each.
std::string refragment(const std::string& one_record, size_t size) {
    std::string body = one_record.substr(5);
    std::string out;
    for (size_t i = 0; i < body.size(); i += size) {
        std::string part = body.substr(i, size);
        out += std::string{'\x16', '\x03', '\x01', static_cast<char>(part.size() >> 8),
                           static_cast<char>(part.size() & 0xff)};
        out += part;
    }
    return out;
}

HandshakeRule rule(const std::string& host, uint16_t port = 443, bool require_sni = true) {
    return {host, port, false, require_sni};
}

}  // namespace

TEST_CASE("a ClientHello naming the CONNECT host passes, as any spelling of it") {
    auto v = judge_first_bytes(client_hello("api.example.com"), rule("api.example.com"));
    CHECK(v.action == Action::pass);
    CHECK(v.tls);
    CHECK(v.server_name == "api.example.com");
    CHECK(judge_first_bytes(client_hello("API.Example.com."), rule("api.example.com")).action ==
          Action::pass);
}

TEST_CASE("a ClientHello naming another host is refused, naming both, with a TLS alert") {
    auto v = judge_first_bytes(client_hello("evil.example.net"), rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.server_name == "evil.example.net");
    CHECK(v.reason.find("evil.example.net") != std::string::npos);
    CHECK(v.reason.find("api.example.com") != std::string::npos);
    // A fatal access_denied alert record: type 21, version 3.x, length 2, level 2, code 49.
    REQUIRE(v.answer.size() == 7);
    CHECK(v.answer[0] == 21);
    CHECK(v.answer[1] == 3);
    CHECK(v.answer.substr(3) == std::string("\x00\x02\x02\x31", 4));
    // A suffix or a sibling of the allowed host is another host.
    CHECK(judge_first_bytes(client_hello("example.com"), rule("api.example.com")).action ==
          Action::refuse);
    CHECK(judge_first_bytes(client_hello("x.api.example.com"), rule("api.example.com")).action ==
          Action::refuse);
}

TEST_CASE("a ClientHello without a server name is refused unless the policy allows it") {
    std::string hello = client_hello(std::nullopt);
    auto v = judge_first_bytes(hello, rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("no SNI") != std::string::npos);
    CHECK(v.reason.find("relay.require_sni") != std::string::npos);
    CHECK(judge_first_bytes(hello, rule("api.example.com", 443, false)).action == Action::pass);
    // To an address a client names no server (RFC 6066): passed, whatever the policy says.
    CHECK(judge_first_bytes(hello, {"192.0.2.10", 443, true, true}).action == Action::pass);
    // An address's tunnel naming a host is fronting all the same.
    CHECK(judge_first_bytes(client_hello("api.example.com"), {"192.0.2.10", 443, true, true})
              .action == Action::refuse);
}

TEST_CASE("a ClientHello with an encrypted real name (ECH) is refused") {
    auto v = judge_first_bytes(client_hello("api.example.com", true), rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("Encrypted Client Hello") != std::string::npos);
}

TEST_CASE("a server name that is no host name is refused") {
    auto v = judge_first_bytes(client_hello("api.example.com\x01x"), rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("not a host name") != std::string::npos);
    CHECK(v.reason.find('\x01') == std::string::npos);
}

TEST_CASE("every prefix of a ClientHello waits for more; split over records it still passes") {
    std::string hello = client_hello("api.example.com");
    for (size_t n = 1; n < hello.size(); ++n) {
        INFO("prefix of " << n << " bytes");
        REQUIRE(judge_first_bytes(hello.substr(0, n), rule("api.example.com")).action ==
                Action::wait);
    }
    std::string split = refragment(hello, hello.size() / 20);
    CHECK(split.size() > hello.size() + 5 * 5);
    for (size_t n = 1; n < split.size(); ++n)
        REQUIRE(judge_first_bytes(split.substr(0, n), rule("api.example.com")).action ==
                Action::wait);
    CHECK(judge_first_bytes(split, rule("api.example.com")).action == Action::pass);
    CHECK(judge_first_bytes(refragment(client_hello("evil.example.net"), 50),
                            rule("api.example.com"))
              .action == Action::refuse);
}

TEST_CASE("a ClientHello that does not end within the bound is refused") {
    // One that announces more than the bound is refused at once.
    std::string big = std::string("\x16\x03\x01\x40\x00\x01\x01\x86\xa0", 9) + std::string(100, 'x');
    auto v = judge_first_bytes(big, rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("announces more than 64 KiB") != std::string::npos);
    // One that fits by its own length but whose records never bring it all in.
    std::string held = std::string("\x16\x03\x01\x40\x00\x01\x00\xff\x00", 9) + std::string(16380, 'x');
    while (held.size() < kMaxFirstBytes) held += std::string("\x16\x03\x01\x00\x00", 5);
    held.resize(kMaxFirstBytes);
    // (empty records: more of them than a hello may span)
    v = judge_first_bytes(held, rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("more than 64 TLS records") != std::string::npos);
    // Split into records of a few bytes, as a censorship-evading client does: fine up to 64.
    std::string hello = client_hello("api.example.com");
    CHECK(judge_first_bytes(refragment(hello, hello.size() / 60 + 1), rule("api.example.com"))
              .action == Action::pass);
    CHECK(judge_first_bytes(refragment(hello, 2), rule("api.example.com")).action ==
          Action::refuse);
    // And the bytes held are bounded: a hello of 65,524 bytes in full records needs more.
    auto record = [](const std::string& part) {
        return std::string{'\x16', '\x03', '\x01', static_cast<char>(part.size() >> 8),
                           static_cast<char>(part.size() & 0xff)} +
               part;
    };
    std::string endless = record(std::string("\x01\x00\xff\xf0", 4) + std::string(16380, 'z'));
    while (endless.size() < kMaxFirstBytes) endless += record(std::string(16384, 'z'));
    endless.resize(kMaxFirstBytes);
    CHECK(judge_first_bytes(endless.substr(0, kMaxFirstBytes - 1), rule("api.example.com")).action ==
          Action::wait);
    v = judge_first_bytes(endless, rule("api.example.com"));
    CHECK(v.action == Action::refuse);
    CHECK(v.reason.find("not complete within 64 KiB") != std::string::npos);
}

TEST_CASE("a handshake record OpenSSL does not read as a ClientHello is refused") {
    std::vector<std::string> bad = {
        std::string("\x16\x03\x01\x00\x05hello", 10),     // not a handshake message
        std::string("\x16\x03\x01\x00\x04\x02\x00\x00\x00", 9),  // a ServerHello
        std::string("\x16\x09\x09\x00\x01\x01", 6),       // no TLS version
        "\x16GET / HTTP/1.1\r\n\r\n",
    };
    for (const auto& b : bad) {
        INFO(b);
        CHECK(judge_first_bytes(b, rule("api.example.com", 8443)).action == Action::refuse);
    }
}

TEST_CASE("other TLS records and SSLv2 hellos are refused on every port") {
    std::vector<std::string> bad = {
        std::string("\x15\x03\x03\x00\x02\x02\x28", 7),  // an alert first
        std::string("\x17\x03\x03\x00\x01x", 6),         // application data first
        std::string("\x14\x03\x03\x00\x01\x01", 6),      // change_cipher_spec first
        std::string("\x80\x2e\x01\x03\x01\x00\x15", 7),  // an SSLv2-format ClientHello
    };
    for (const auto& b : bad) {
        CHECK(judge_first_bytes(b, rule("git.example.org", 22)).action == Action::refuse);
        CHECK(judge_first_bytes(b, rule("git.example.org", 443)).action == Action::refuse);
    }
    // Too short to tell: wait.
    CHECK(judge_first_bytes("\x15", rule("git.example.org", 22)).action == Action::wait);
    CHECK(judge_first_bytes("\x80\x2e", rule("git.example.org", 22)).action == Action::wait);
}

TEST_CASE("plain protocols pass unread on other ports and are refused on 443") {
    for (const std::string& first : std::vector<std::string>{"SSH-2.0-OpenSSH_9.2\r\n", "0032git-upload-pack /x\n",
                              "GET / HTTP/1.1\r\n", std::string("\x00\x00\x00\x08", 4),
                              std::string("\x80\x00\x00\x00", 4)}) {
        INFO(first);
        auto v = judge_first_bytes(first, rule("git.example.org", 22));
        CHECK(v.action == Action::pass);
        CHECK_FALSE(v.tls);
        v = judge_first_bytes(first, rule("git.example.org", 443));
        CHECK(v.action == Action::refuse);
        CHECK(v.reason.find("port 443 carries TLS only") != std::string::npos);
    }
    CHECK(judge_first_bytes("", rule("git.example.org", 443)).action == Action::wait);
}

TEST_CASE("OpenSSL reads the server name as its own server would") {
    auto r = read_client_hello(client_hello("api.example.com"));
    CHECK(r.state == ClientHelloRead::State::hello);
    REQUIRE(r.server_name);
    CHECK(*r.server_name == "api.example.com");
    CHECK_FALSE(r.encrypted_name);
    r = read_client_hello(client_hello(std::nullopt));
    CHECK(r.state == ClientHelloRead::State::hello);
    CHECK_FALSE(r.server_name);
}
