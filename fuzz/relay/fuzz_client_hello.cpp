// libFuzzer target: a tunnel's first client bytes, as the relay holds them before any reach
// the target. Feeds them to the judgement (OpenSSL's ClientHello reading included) for a host
// name, an address and a plain port, and checks its promises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "relay/handshake/first_bytes.h"

using namespace toolcage::relay;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > kMaxFirstBytes) return 0;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static const HandshakeRule rules[] = {{"api.example.com", 443, false, true},
                                          {"192.0.2.10", 443, true, true},
                                          {"git.example.org", 22, false, false}};
    for (const auto& rule : rules) {
        FirstBytesVerdict v = judge_first_bytes(bytes, rule);
        if (v.action == FirstBytesVerdict::Action::refuse && v.reason.empty()) std::abort();
        // A host name passes only with that very name, or none where none is allowed.
        if (v.action == FirstBytesVerdict::Action::pass && v.tls && !v.server_name.empty() &&
            v.server_name != rule.host)
            std::abort();
        if (v.action == FirstBytesVerdict::Action::pass && v.tls && v.server_name.empty() &&
            rule.require_sni && !rule.ip_literal)
            std::abort();
        // The bound: a hello still incomplete at kMaxFirstBytes is never waited on.
        if (v.action == FirstBytesVerdict::Action::wait && size >= kMaxFirstBytes) std::abort();
        // Port 443 carries TLS only.
        if (v.action == FirstBytesVerdict::Action::pass && rule.port == 443 && !v.tls) std::abort();
    }
    return 0;
}
