// The CONNECT parser, by a table of requests and the answer each must get.
#include <catch2/catch.hpp>
#include <string>

#include "relay/request_parser.h"

using toolcage::relay::parse_connect_request;
using State = toolcage::relay::ParseResult::State;

namespace {
struct Case {
    const char* name;
    std::string bytes;
    State state;
    int status;
};
}  // namespace

TEST_CASE("request parser: each request gets its answer") {
    const std::string big(9000, 'a');
    const Case cases[] = {
        {"plain CONNECT", "CONNECT a.example.com:443 HTTP/1.1\r\nHost: a.example.com:443\r\n\r\n",
         State::complete, 0},
        {"HTTP/1.0", "CONNECT a.example.com:443 HTTP/1.0\r\n\r\n", State::complete, 0},
        {"incomplete", "CONNECT a.example.com:443 HTTP/1.1\r\nHost: a", State::incomplete, 0},
        {"GET", "GET http://a.example.com/ HTTP/1.1\r\n\r\n", State::refused, 405},
        {"GET before its line ends", "GET http://a.exa", State::refused, 405},
        {"lowercase connect", "connect a.example.com:443 HTTP/1.1\r\n\r\n", State::refused, 405},
        {"PRI preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", State::refused, 405},
        {"Upgrade header", "CONNECT a.example.com:443 HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
         State::refused, 405},
        {"upgrade header, any case", "CONNECT a.example.com:443 HTTP/1.1\r\nuPgRaDe: websocket\r\n\r\n",
         State::refused, 405},
        {"obs-fold", "CONNECT a.example.com:443 HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n", State::refused,
         400},
        {"space before colon", "CONNECT a.example.com:443 HTTP/1.1\r\nHost : x\r\n\r\n",
         State::refused, 400},
        {"tab before colon", "CONNECT a.example.com:443 HTTP/1.1\r\nHost\t: x\r\n\r\n",
         State::refused, 400},
        {"bare LF", "CONNECT a.example.com:443 HTTP/1.1\nHost: x\n\n", State::refused, 400},
        {"bare CR in a value", "CONNECT a.example.com:443 HTTP/1.1\r\nX: a\rb\r\n\r\n",
         State::refused, 400},
        {"NUL in a value", std::string("CONNECT a.example.com:443 HTTP/1.1\r\nX: a\0b\r\n\r\n", 47),
         State::refused, 400},
        {"non-ASCII in a value", "CONNECT a.example.com:443 HTTP/1.1\r\nX: caf\xc3\xa9\r\n\r\n",
         State::refused, 400},
        {"two spaces", "CONNECT  a.example.com:443 HTTP/1.1\r\n\r\n", State::refused, 400},
        {"no version", "CONNECT a.example.com:443\r\n\r\n", State::refused, 400},
        {"HTTP/2.0 version", "CONNECT a.example.com:443 HTTP/2.0\r\n\r\n", State::refused, 400},
        {"body by length", "CONNECT a.example.com:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
         State::refused, 400},
        {"chunked body", "CONNECT a.example.com:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
         State::refused, 400},
        {"two Proxy-Authorization",
         "CONNECT a:443 HTTP/1.1\r\nProxy-Authorization: a\r\nProxy-Authorization: b\r\n\r\n",
         State::refused, 400},
        {"oversize header", "CONNECT a.example.com:443 HTTP/1.1\r\nX: " + big + "\r\n\r\n",
         State::refused, 431},
        {"oversize, not yet ended", "CONNECT a.example.com:443 HTTP/1.1\r\nX: " + big,
         State::refused, 431},
        {"empty line first", "\r\nCONNECT a:443 HTTP/1.1\r\n\r\n", State::refused, 400},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto r = parse_connect_request(c.bytes);
        CHECK(r.state == c.state);
        if (c.state == State::refused) {
            CHECK(r.status == c.status);
            CHECK(!r.reason.empty());
        }
    }
}

TEST_CASE("request parser: bytes after the header are left for the tunnel") {
    std::string head = "CONNECT a.example.com:443 HTTP/1.1\r\nProxy-Authorization: Basic eA==\r\n\r\n";
    auto r = parse_connect_request(head + "\x16\x03\x01 client hello");
    REQUIRE(r.state == State::complete);
    CHECK(r.request.header_bytes == head.size());
    CHECK(r.request.target == "a.example.com:443");
    REQUIRE(r.request.proxy_authorization);
    CHECK(*r.request.proxy_authorization == "Basic eA==");
}

TEST_CASE("request parser: a header of exactly 8 KiB is accepted, one byte more is not") {
    std::string start = "CONNECT a.example.com:443 HTTP/1.1\r\nX: ";
    std::string end = "\r\n\r\n";
    std::string fits = start + std::string(8192 - start.size() - end.size(), 'v') + end;
    REQUIRE(fits.size() == 8192);
    CHECK(parse_connect_request(fits).state == State::complete);
    std::string over = start + std::string(8193 - start.size() - end.size(), 'v') + end;
    auto r = parse_connect_request(over);
    CHECK(r.state == State::refused);
    CHECK(r.status == 431);
}
