// `toolcage policy openshell NAME --base FILE`: the sandbox's current policy with the relay's
// access merged in, each endpoint shaped so that OpenShell's admission accepts the whole.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toolcage::lint {

// One relay.allow entry as OpenShell sees it.
struct RelayEndpoint {
    std::string host;   // OpenShell host pattern (`**.suffix` for the relay's any-depth wildcard)
    std::uint32_t port = 443;
    bool credentialed = false;  // relay.credentialed declares it
    std::string entry;          // as written in relay.allow, for messages
};

struct RelayAccess {
    std::string rule_key;      // e.g. toolcage_relay_forge
    std::string display_name;  // e.g. "toolcage-relay forge"
    std::string relay_binary;  // the relay's installed path
    std::vector<RelayEndpoint> endpoints;
};

// `base_text` (as `openshell policy get [--full]` prints it) with the relay's rule added (or
// replaced, when merged before). An endpoint whose host and port no endpoint of the base can
// match is `tls: skip`: OpenShell tunnels the relay's bytes untouched, terminating nothing and
// rewriting no credential. One the base already shapes takes that shape's connection fields
// (tls, protocol tcp, allowed_ips) and nothing else, so the two agree. `_provider_` rules are
// read (a provider's hosts hold its credential) and left out of the output (the gateway adds
// them itself and refuses them in a submitted policy). Throws Error naming the file, the entry
// and the reason for a base OpenShell would refuse, a host the base binds a credential to that
// relay.credentialed does not declare, or a host no single shape can join.
std::string merged_policy_yaml(const RelayAccess& relay, const std::string& base_text,
                               const std::string& base_file);

}  // namespace toolcage::lint
