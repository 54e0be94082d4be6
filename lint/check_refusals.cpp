#include <algorithm>
#include <string>

#include "common/host_pattern.h"
#include "lint/checks.h"

namespace toolcage::lint {
namespace {

bool is_skip(const std::string& tls) {
    std::string t = tls;
    std::transform(t.begin(), t.end(), t.begin(), ::tolower);
    return t == "skip";
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\n") == std::string::npos; }

// OpenShell's admission (find_uninspected_credentialed_endpoint): a credentialed endpoint with
// no protocol at all is "L4-only", one with `tls: skip` is uninspected; `protocol: tcp` is a
// protocol there, and passes.
const char* uninspected_mode(const Endpoint& e) {
    if (blank(e.protocol)) return "L4-only (no protocol)";
    if (is_skip(e.tls)) return "`tls: skip`";
    return nullptr;
}

bool ports_meet(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    return a.empty() || b.empty() ||
           std::any_of(a.begin(), a.end(), [&](auto p) { return std::find(b.begin(), b.end(), p) != b.end(); });
}

// For the generated policy every credential host counts (an environment file says what the
// agent will hold once it is deployed); for the sandbox's own policies, what OpenShell binds.
const CredentialHost* bound_credential(const Endpoint& e, const std::vector<CredentialHost>& hosts,
                                       bool generated) {
    for (const auto& h : hosts) {
        if (h.pattern.empty() || e.host.empty() || (!generated && !h.provider)) continue;
        if (ports_meet(e.ports, h.ports) && host_patterns_overlap(e.host, h.pattern)) return &h;
    }
    return nullptr;
}

void check_endpoint(const Endpoint& e, const std::string& file, bool generated,
                    const std::vector<CredentialHost>& hosts, Findings& out) {
    const char* mode = uninspected_mode(e);
    if (e.allow_uninspected_credentials || !mode) return;
    const CredentialHost* h = bound_credential(e, hosts, generated);
    if (!h) return;
    out.push_back({kUninspectedCredential, file, e.field,
                   "\"" + e.host + "\" is bound to a credential (" + h->evidence + ") and is " + mode +
                       ": OpenShell rejects an uninspected credentialed endpoint unless it sets "
                       "`allow_uninspected_credentials: true`",
                   generated ? "remove the host from relay.allow, or, if the worker must reach it "
                               "with that credential, add it to relay.credentialed (the endpoint "
                               "is then generated inspected: protocol rest, enforcement enforce)"
                             : "inspect it (drop `tls: skip`, set `protocol: rest` with an "
                               "`access` preset), or set `allow_uninspected_credentials: true` "
                               "if it must stay opaque"});
}

// OpenShell's middleware rule: a fail-closed middleware must inspect every endpoint its
// selector may match, so a `tls: skip` endpoint there refuses the policy.
bool selector_may_match(const Middleware& m, const std::string& host) {
    if (host.empty()) return false;
    bool included = std::any_of(m.include.begin(), m.include.end(),
                                [&](const std::string& p) { return host_patterns_overlap(p, host); });
    bool excluded = std::any_of(m.exclude.begin(), m.exclude.end(),
                                [&](const std::string& p) { return host_pattern_covers(p, host); });
    return included && !excluded;
}

}  // namespace

void check_refusals(const LintInput& input, const std::vector<CredentialHost>& hosts, Findings& out) {
    std::vector<const OpenShellPolicy*> policies;
    if (input.generated) policies.push_back(&*input.generated);
    for (const auto& p : input.openshell) policies.push_back(&p);

    if (input.generated) {
        for (const auto& rule : input.generated->rules) {
            if (rule.provider_layer()) continue;
            bool relay_rule = rule.key.starts_with("toolcage_relay");
            if (!relay_rule) continue;  // a rule of the base the relay's policy was merged into
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
    }
    for (const OpenShellPolicy* p : policies) {
        const bool generated = p == (input.generated ? &*input.generated : nullptr);
        for (const auto& rule : p->rules)
            for (const auto& e : rule.endpoints)
                check_endpoint(e, p->file, generated && rule.key.starts_with("toolcage_relay"), hosts, out);
    }
    // A provider profile's own endpoints are credentialed (once each: a `_provider_` rule of
    // the same host was checked above).
    for (const auto& prof : input.providers) {
        if (prof.env_vars.empty()) continue;
        for (const auto& e : prof.endpoints) {
            bool as_rule = std::any_of(input.openshell.begin(), input.openshell.end(), [&](const OpenShellPolicy& p) {
                return std::any_of(p.rules.begin(), p.rules.end(), [&](const NetworkRule& r) {
                    return r.provider_layer() && std::any_of(r.endpoints.begin(), r.endpoints.end(), [&](const Endpoint& x) {
                               return x.host == e.host && x.ports == e.ports;
                           });
                });
            });
            const char* mode = uninspected_mode(e);
            if (as_rule || e.allow_uninspected_credentials || !mode) continue;
            out.push_back({kUninspectedCredential, prof.file, e.field,
                           "provider \"" + prof.id + "\" binds a credential to \"" + e.host + "\", which is " +
                               mode + ": OpenShell rejects the sandbox's policy while this provider is attached",
                           "give the profile's endpoint an L7 protocol (and no `tls: skip`), or set "
                           "`allow_uninspected_credentials: true` on it"});
        }
    }
    for (const OpenShellPolicy* mp : policies)
        for (const auto& m : mp->middlewares) {
            if (!m.fail_closed()) continue;
            for (const OpenShellPolicy* p : policies)
                for (const auto& rule : p->rules)
                    for (const auto& e : rule.endpoints)
                        if (e.tls == "skip" && selector_may_match(m, e.host))
                            out.push_back({kMiddlewareTlsSkip, p->file, e.field,
                                           "\"" + e.host + "\" is `tls: skip`, and the fail-closed middleware \"" +
                                               m.name + "\" (" + mp->file + " at " + m.field +
                                               ") selects it: OpenShell refuses the policy, since a "
                                               "skipped tunnel cannot be inspected",
                                           "drop `tls: skip` there (merge with `toolcage policy openshell "
                                           "NAME --base FILE` does), exclude the host from the middleware, "
                                           "or make it `on_error: fail_open`"});
        }
}

}  // namespace toolcage::lint
