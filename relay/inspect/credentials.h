// Credentials the relay puts into requests to inspected hosts: the step holds a placeholder, the
// relay the secret. Pure: a request's headers in, the same headers with the secret in place (or
// a refusal) out. Placeholders sent anywhere else are refused, so a step cannot carry a secret's
// stand-in to a host that would learn which credential it names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolcage::relay {

struct BoundCredential {
    std::string host;         // the relay.inspect entry it is bound to
    std::string as;           // "bearer", "basic:<user>", "header:<Name>"
    std::string env;          // the step's variable, for messages
    std::string placeholder;  // what the step holds
    std::string secret;       // what the server gets; never logged
    std::string field;        // "relay.credentials/0", for messages
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct CredentialOutcome {
    bool refused = false;
    std::string reason;     // names the variable and the host, never a value
    std::string field;      // the refused placeholder's binding, "relay.credentials/0"
    bool injected = false;  // a secret went into the request
};

// `mine`: the credential bound to this connection's host, or null. `all`: every binding (their
// placeholders may appear nowhere but in `mine`'s header). `target`: the host, for messages.
CredentialOutcome apply_credentials(HeaderList& headers, std::string_view url,
                                    const BoundCredential* mine,
                                    const std::vector<BoundCredential>& all,
                                    const std::string& target);

// A piece of a request's body (`piece`, whole however the client split it: see RequestStream's
// BodyCheck) that carries the placeholder of a binding other than `mine` is refused: a body is
// never where a secret goes in, and a placeholder there is on its way to a host it is not bound to.
CredentialOutcome placeholder_in_body(std::string_view piece, const BoundCredential* mine,
                                      const std::vector<BoundCredential>& all,
                                      const std::string& target);

// The length of the longest placeholder of `all` (0 when none).
std::size_t longest_placeholder(const std::vector<BoundCredential>& all);

// Standard base64 through OpenSSL's EVP codec. nullopt on malformed input.
std::optional<std::string> evp_base64_decode(std::string_view in);
std::string evp_base64_encode(std::string_view in);

}  // namespace toolcage::relay
