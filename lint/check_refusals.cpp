#include <algorithm>
#include <string>

#include "common/host_pattern.h"
#include "lint/checks.h"

namespace toolcage::lint {
namespace {

// OpenShell inspects an endpoint (and can inject a credential into it) only when it terminates
// TLS and parses an L7 protocol; `tls: skip` or no protocol leaves it opaque.
bool uninspected(const Endpoint& e) {
    return e.tls == "skip" || e.protocol.empty() || e.protocol == "tcp";
}

// For the generated policy every credential host counts (an environment file says what the
// agent will hold once it is deployed); for the sandbox's own policies, what OpenShell binds.
const CredentialHost* bound_credential(const Endpoint& e, const std::vector<CredentialHost>& hosts,
                                       bool generated) {
    for (const auto& h : hosts) {
        if (h.pattern.empty() || e.host.empty() || (!generated && !h.provider)) continue;
        bool port = std::any_of(e.ports.begin(), e.ports.end(), [&](std::uint32_t p) {
            return std::find(h.ports.begin(), h.ports.end(), p) != h.ports.end();
        });
        if (port && host_patterns_overlap(e.host, h.pattern)) return &h;
    }
    return nullptr;
}

void check_policy(const OpenShellPolicy& p, bool generated, const std::vector<CredentialHost>& hosts,
                  Findings& out) {
    for (const auto& rule : p.rules)
        for (const auto& e : rule.endpoints) {
            if (e.allow_uninspected_credentials || !uninspected(e)) continue;
            const CredentialHost* h = bound_credential(e, hosts, generated);
            if (!h) continue;
            out.push_back({kUninspectedCredential, p.file, e.field,
                           "\"" + e.host + "\" is bound to a credential (" + h->evidence + ") and is " +
                               (e.tls == "skip" ? "`tls: skip`" : "not inspected (no L7 protocol)") +
                               ": OpenShell rejects an uninspected credentialed endpoint unless it sets "
                               "`allow_uninspected_credentials: true`",
                           generated ? "remove the host from relay.allow, or, if the worker must reach it "
                                       "with that credential, add it to relay.credentialed (the endpoint "
                                       "is then generated inspected: protocol rest, enforcement enforce)"
                                     : "inspect it (drop `tls: skip`, set `protocol: rest` with an "
                                       "`access` preset), or set `allow_uninspected_credentials: true` "
                                       "if it must stay opaque"});
        }
}

}  // namespace

void check_refusals(const LintInput& input, const std::vector<CredentialHost>& hosts, Findings& out) {
    if (input.generated) {
        for (const auto& rule : input.generated->rules) {
            // OpenShell lets every binary reach a rule's endpoints when it lists none.
            if (rule.binaries.empty())
                out.push_back({kForeignBinary, input.generated->file, "network_policies." + rule.key,
                               "the relay's policy lists no binary, which OpenShell reads as every binary",
                               "grant the endpoints to toolcage-relay alone (--relay PATH)"});
            for (std::size_t i = 0; i < rule.binaries.size(); ++i)
                if (rule.binaries[i] != input.relay_binary)
                    out.push_back({kForeignBinary, input.generated->file,
                                   "network_policies." + rule.key + ".binaries[" + std::to_string(i) + "]",
                                   "the relay's policy grants \"" + rule.binaries[i] +
                                       "\", a binary other than toolcage-relay (" + input.relay_binary +
                                       "): a program the worker drives could reach its hosts directly",
                                   "grant the endpoints to toolcage-relay alone (pass its installed path "
                                   "with --relay PATH)"});
        }
        check_policy(*input.generated, true, hosts, out);
    }
    for (const auto& p : input.openshell) check_policy(p, false, hosts, out);
}

}  // namespace toolcage::lint
