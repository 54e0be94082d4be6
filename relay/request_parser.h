// The strict parser for the one request a client may send the relay: `CONNECT host:port`.
// Pure: bytes in, a decision out. It reads untrusted bytes, so it has a fuzz target.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolcage::relay {

inline constexpr size_t kMaxHeaderBytes = 8192;

struct ConnectRequest {
    std::string target;                              // as written: host:port
    std::optional<std::string> proxy_authorization;  // the header's value, if sent
    size_t header_bytes = 0;  // length of the header block, final CRLF CRLF included
};

struct ParseResult {
    enum class State { incomplete, complete, refused };
    State state = State::incomplete;
    int status = 0;      // HTTP status to answer with when refused
    std::string reason;  // why, for the client and the log
    ConnectRequest request;
};

// Parses the start of `buf`. `incomplete` means: read more (unless the deadline passed).
// Refuses: any method but CONNECT (405), `Upgrade` (405), obs-fold, whitespace before ':',
// bare CR or LF, control or non-ASCII bytes, a body (400), a header block over 8 KiB (431).
ParseResult parse_connect_request(std::string_view buf);

}  // namespace toolcage::relay
