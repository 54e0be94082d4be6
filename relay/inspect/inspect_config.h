// What the relay inspects and adds, as `toolcage run` hands it over in one JSON file
// (--inspect-file, 0600, removed once the relay has read it): the policy's relay.inspect,
// relay.upstream_ca, relay.credentials (each with the placeholder the step holds) and
// relay.requests, and where toolcage's CA lives.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/policy.h"
#include "relay/inspect/ca.h"
#include "relay/inspect/credentials.h"

namespace toolcage::relay {

struct InspectContext {
    std::vector<std::string> inspect;  // allow-grammar entries
    std::shared_ptr<InspectCa> ca;
    SslCtxPtr upstream;  // verifies real servers: the system's trust store (+ upstream_ca)
    std::string upstream_ca;
    std::vector<BoundCredential> credentials;
    std::vector<std::pair<std::string, RelayRequestRules>> requests;

    // The relay.inspect entry covering host:port, or nullptr.
    const std::string* inspected(const std::string& host, uint16_t port) const;
    const BoundCredential* credential_for(const std::string& host, uint16_t port) const;
    const std::pair<std::string, RelayRequestRules>* rules_for(const std::string& host,
                                                               uint16_t port) const;
};

// Reads the file; reads each credential's secret file (trailing newline dropped; it must be one
// line of visible characters). Throws toolcage::Error naming the field and the fix, never a secret.
std::shared_ptr<InspectContext> load_inspect_file(const std::string& path);

// The client context for inspected hosts' real servers: TLS 1.2 or later, peer verified against
// OpenSSL's compiled-in default file and directory (the system's, never $SSL_CERT_FILE), plus
// `extra_ca` when given.
SslCtxPtr upstream_client_context(const std::string& extra_ca);

}  // namespace toolcage::relay
