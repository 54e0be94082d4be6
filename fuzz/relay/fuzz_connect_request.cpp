// libFuzzer target: the bytes a caged program sends the relay before any tunnel exists.
// Feeds them to the request parser, then the target parser, the allowlist and the
// Proxy-Authorization check, as the relay would, and checks the parser's promises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "relay/allowlist.h"
#include "relay/auth.h"
#include "relay/request_parser.h"
#include "relay/target.h"

using namespace toolcage::relay;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static const Allowlist allow = Allowlist::parse(
        {"api.example.com", "*.example.net:8443", "127.0.0.1:443", "[::1]:443"}, "--allow");
    static const TokenAuth auth("0123456789abcdef0123456789abcdef");

    ParseResult r = parse_connect_request(bytes);
    if (r.state == ParseResult::State::complete) {
        if (r.request.header_bytes > size || r.request.header_bytes > kMaxHeaderBytes) std::abort();
        if (bytes.substr(0, 8) != "CONNECT ") std::abort();
        if (bytes.substr(r.request.header_bytes - 4, 4) != "\r\n\r\n") std::abort();
        (void)auth.accepts(r.request.proxy_authorization);
        TargetParse t = parse_target(r.request.target);
        if (t.target) {
            (void)allow.refusal(*t.target);
            if (t.target->port == 0) std::abort();
        }
    } else if (r.state == ParseResult::State::refused) {
        if (r.reason.empty() || r.status < 400 || r.status > 431) std::abort();
    } else if (size >= kMaxHeaderBytes) {
        std::abort();  // an incomplete answer past the cap would let a client hold memory
    }

    // The same bytes as an allowlist entry and as a raw target.
    try {
        (void)parse_allow_entry(bytes.substr(0, 300), "--allow");
    } catch (const toolcage::Error&) {
    }
    (void)parse_target(bytes.substr(0, 300));
    (void)base64_decode(bytes.substr(0, 300));
    return 0;
}
