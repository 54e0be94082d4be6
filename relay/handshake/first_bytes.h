// The decision on a tunnel's first client bytes, before any of them reach the target: a TLS
// handshake must name the host the CONNECT named (no domain fronting through a shared front
// end), and port 443 carries TLS only. Pure, and tested by tables of real ClientHellos.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace toolcage::relay {

// The bytes held while the ClientHello is incomplete: a ClientHello is rarely over 2 KiB (a
// post-quantum key share included); 64 KiB is four full TLS records.
inline constexpr size_t kMaxFirstBytes = 64 * 1024;
// The records a ClientHello may span: one in practice, a few for a very large one, or for a
// client that splits it on purpose; more is refused (and bounds the relay's work per read).
inline constexpr size_t kMaxHelloRecords = 64;

// The port whose tunnels must open with TLS: anything else there is refused.
inline constexpr uint16_t kTlsOnlyPort = 443;

struct HandshakeRule {
    std::string host;         // the CONNECT's host, canonical (IPv6 without brackets)
    uint16_t port = 0;
    bool ip_literal = false;  // the CONNECT named an address: a hello then names none
    bool require_sni = true;  // relay.require_sni: a hello without a server name is refused
};

struct FirstBytesVerdict {
    enum class Action { wait, pass, refuse };
    Action action = Action::wait;
    bool tls = false;          // the bytes open a TLS handshake
    std::string server_name;   // the hello's server name, canonical when it is a host name
    std::string reason;        // why refused (names both hosts when they differ), or a note
    std::string answer;        // what the refused client is sent before the close (a TLS alert)
};

// `held`: every byte the client sent since the tunnel opened, up to kMaxFirstBytes.
FirstBytesVerdict judge_first_bytes(std::string_view held, const HandshakeRule& rule);

}  // namespace toolcage::relay
