#include "relay/handshake/first_bytes.h"

#include <algorithm>

#include "common/host_names.h"
#include "relay/handshake/client_hello.h"

namespace toolcage::relay {
namespace {

// TLS record content types (RFC 8446 §5.1).
constexpr unsigned char kChangeCipherSpec = 20;
constexpr unsigned char kAlert = 21;
constexpr unsigned char kHandshake = 22;
constexpr unsigned char kApplicationData = 23;
constexpr unsigned char kClientHello = 1;  // handshake message type (RFC 8446 §4)

FirstBytesVerdict refuse(std::string reason, std::string answer = {}) {
    FirstBytesVerdict v;
    v.action = FirstBytesVerdict::Action::refuse;
    v.reason = std::move(reason);
    v.answer = std::move(answer);
    return v;
}

// Whether the bytes can only be TLS other than a ClientHello record: a record of another type
// (its version's major byte is 3), or a ClientHello in the SSLv2 format, which carries no
// server name (a record length with the high bit, then message type 1, then version 3.x).
bool other_tls(std::string_view b, bool& need_more) {
    auto u = [&](size_t i) { return static_cast<unsigned char>(b[i]); };
    unsigned char first = u(0);
    if (first == kChangeCipherSpec || first == kAlert || first == kApplicationData) {
        if (b.size() < 2) return need_more = true, false;
        return u(1) == 3;
    }
    if (first & 0x80) {
        if (b.size() < 4) return need_more = true, false;
        return u(2) == 1 && (u(3) == 3 || u(3) == 2);
    }
    return false;
}

// Whether the handshake records in `b` hold the whole first handshake message yet, counted
// from the record headers (type, version, 2-byte length) and the message's own header (type,
// 3-byte length). Only a count, so that OpenSSL reads the hello once, not after every read of a
// client that sends it a byte at a time; what the bytes mean is OpenSSL's to say.
// `other`: something OpenSSL refuses at once (a record of another type or version, a handshake
// message other than a ClientHello), so it reads the bytes now to say what.
enum class Framing { incomplete, whole, too_many_records, too_long, other };

Framing frame(std::string_view b) {
    auto u = [&](size_t i) { return static_cast<unsigned char>(b[i]); };
    size_t pos = 0;
    size_t records = 0;
    size_t payload = 0;
    size_t need = 0;  // 0: the message's header has not arrived yet
    unsigned char header[4];
    while (pos + 5 <= b.size()) {
        if (u(pos) != kHandshake || u(pos + 1) != 3) return Framing::other;
        if (++records > kMaxHelloRecords) return Framing::too_many_records;
        size_t len = (static_cast<size_t>(u(pos + 3)) << 8) | u(pos + 4);
        size_t avail = std::min(len, b.size() - pos - 5);
        for (size_t i = 0; i < avail && payload + i < 4; ++i) header[payload + i] = u(pos + 5 + i);
        payload += avail;
        if (need == 0 && payload >= 4) {
            if (header[0] != kClientHello) return Framing::other;
            need = 4 + ((static_cast<size_t>(header[1]) << 16) |
                        (static_cast<size_t>(header[2]) << 8) | header[3]);
            // Its records' headers come on top, so it cannot fit in the bytes held.
            if (need > kMaxFirstBytes) return Framing::too_long;
        }
        if (need != 0 && payload >= need) return Framing::whole;
        if (avail < len) break;
        pos += 5 + len;
    }
    return Framing::incomplete;
}

}  // namespace

FirstBytesVerdict judge_first_bytes(std::string_view held, const HandshakeRule& rule) {
    FirstBytesVerdict v;
    if (held.empty()) return v;
    const std::string connect_host = rule.host + ":" + std::to_string(rule.port);

    // 1. Not a TLS handshake: refused when it can only be TLS of another kind, or on port 443
    //    (whose tunnels carry TLS only); passed unread on other ports (ssh, git, plain
    //    protocols: there is no handshake name to compare).
    if (static_cast<unsigned char>(held[0]) != kHandshake) {
        bool need_more = false;
        if (other_tls(held, need_more))
            return refuse("the tunnel to " + connect_host +
                          " opens with a TLS record other than a ClientHello, or an SSLv2-format "
                          "ClientHello, which names no server; refused");
        if (need_more && held.size() < 4) return v;
        if (rule.port == kTlsOnlyPort)
            return refuse("the tunnel to " + connect_host +
                          " does not open with a TLS ClientHello; port 443 carries TLS only");
        v.action = FirstBytesVerdict::Action::pass;
        v.reason = "not TLS: passed unread";
        return v;
    }

    // 2. A TLS handshake: OpenSSL reads the ClientHello, over as many records as it spans.
    v.tls = true;
    auto refuse_tls = [&v](std::string reason, std::string answer) {
        FirstBytesVerdict r = refuse(std::move(reason), std::move(answer));
        r.tls = true;
        r.server_name = v.server_name;
        return r;
    };
    Framing framing = frame(held);
    if (framing == Framing::too_many_records)
        return refuse_tls("the ClientHello for " + connect_host + " is split into more than " +
                              std::to_string(kMaxHelloRecords) + " TLS records; refused",
                          {});
    if (framing == Framing::too_long)
        return refuse_tls("the ClientHello for " + connect_host + " announces more than " +
                              std::to_string(kMaxFirstBytes / 1024) + " KiB; refused",
                          {});
    if (framing == Framing::incomplete) {
        if (held.size() < kMaxFirstBytes) return v;
        return refuse_tls("the ClientHello for " + connect_host + " is not complete within " +
                              std::to_string(kMaxFirstBytes / 1024) + " KiB; refused",
                          {});
    }
    // Whole by its headers, or not a ClientHello at all: OpenSSL reads it now.
    ClientHelloRead hello = read_client_hello(held);
    if (hello.state == ClientHelloRead::State::incomplete) {
        return refuse_tls("the ClientHello for " + connect_host +
                              " is longer than its records say; refused",
                          {});
    }
    if (hello.state == ClientHelloRead::State::malformed)
        return refuse_tls("the TLS handshake for " + connect_host + " is refused: " + hello.problem,
                      hello.alert);

    // 3. The name it carries is the CONNECT's host, or it carries none where that is allowed.
    if (hello.encrypted_name)
        return refuse_tls("the ClientHello for " + connect_host +
                          " encrypts its real server name (Encrypted Client Hello), which the "
                          "relay cannot compare with the CONNECT host; turn ECH off in the client",
                      hello.alert);
    if (!hello.server_name) {
        // A client names no server when it connects to an address (RFC 6066 §3).
        if (rule.ip_literal || !rule.require_sni) {
            v.action = FirstBytesVerdict::Action::pass;
            return v;
        }
        return refuse_tls("the ClientHello for " + connect_host +
                          " names no server (no SNI), so the relay cannot tell which host it "
                          "is for; refused (relay.require_sni: false allows it)",
                      hello.alert);
    }
    std::string error;
    auto canonical = canonical_hostname(*hello.server_name, error);
    std::string shown = canonical ? *canonical : *hello.server_name;
    v.server_name = shown;
    if (!canonical) {
        for (auto& c : shown)
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
                c = '?';
        v.server_name = shown;
        return refuse_tls("the ClientHello for " + connect_host + " names \"" + shown +
                              "\", which is not a host name (" + error + "); refused",
                          hello.alert);
    }
    if (*canonical != rule.host) {
        return refuse_tls("the ClientHello names " + *canonical + ", not the CONNECT host " +
                              rule.host + ": a handshake must name the host it was allowed "
                              "for (domain fronting is refused)",
                          hello.alert);
    }
    v.action = FirstBytesVerdict::Action::pass;
    return v;
}

}  // namespace toolcage::relay
