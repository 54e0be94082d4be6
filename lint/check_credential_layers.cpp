// Which layer holds which secret: OpenShell's providers inject at OpenShell's proxy, toolcage's
// relay.credentials at the relay. One endpoint must get its credential from one of them, never
// from both: the two would overwrite each other, and the step's placeholder would meet a proxy
// that does not know it.
#include <algorithm>
#include <set>
#include <string>

#include "common/host_names.h"
#include "common/host_pattern.h"
#include "lint/checks.h"

namespace toolcage::lint {
namespace {

// Whether the allow-grammar entry `entry` names a host:port where `h` holds a credential.
bool reaches(const std::string& entry, const CredentialHost& h) {
    std::string problem;
    auto e = read_allow_entry(entry, problem);
    if (!e || e->ip || h.pattern.empty()) return false;
    if (std::find(h.ports.begin(), h.ports.end(), e->port) == h.ports.end()) return false;
    return host_patterns_overlap(relay_host_pattern(*e), h.pattern);
}

std::string kind_of(const RelayCredential& c) {
    if (c.as.starts_with("basic:")) return "HTTP basic auth";
    if (c.as.starts_with("header:")) return "the " + c.as.substr(7) + " header";
    return "a bearer token";
}

}  // namespace

void check_credential_layers(const LintInput& input, const std::vector<CredentialHost>& hosts,
                             Findings& out, Findings& notes) {
    std::set<std::string> both;  // provider patterns a relay binding also covers
    for (const auto& c : input.credentials) {
        std::string evidence;
        for (const auto& h : hosts) {
            if (!h.provider || !reaches(c.binding.host, h)) continue;
            evidence += (evidence.empty() ? "" : "; ") + h.evidence;
            both.insert(h.pattern);
        }
        const std::string field = c.field + "/host";
        if (!evidence.empty()) {
            out.push_back(
                {kTwoLayers, c.file, field,
                 "\"" + c.binding.host +
                     "\" gets a credential from two layers: toolcage's relay puts "
                     "the secret of " +
                     c.binding.secret_file + " into each request as " + kind_of(c.binding) +
                     ", and OpenShell injects its own at its proxy (" + evidence + ")",
                 "keep one layer: drop " + c.field +
                     " and let OpenShell's provider inject it, or detach the provider for this "
                     "host "
                     "from the sandbox (openshell provider) and keep toolcage's binding"});
            continue;
        }
        notes.push_back({kCredentialLayer, c.file, field,
                         "\"" + c.binding.host + "\": toolcage's relay injects its credential (" +
                             kind_of(c.binding) + " from " + c.binding.secret_file +
                             "; the step holds only $" + c.binding.placeholder_env +
                             "'s placeholder); no OpenShell provider injects one",
                         "nothing to do; this says which layer holds the secret", true});
    }
    // Where the relay injects nothing, each host OpenShell injects for, once.
    if (input.credentials.empty() && input.inspect.empty()) return;
    std::set<std::string> said;
    for (const auto& h : hosts) {
        if (!h.provider || both.count(h.pattern) || !said.insert(h.pattern).second) continue;
        std::string ports;
        for (auto p : h.ports) ports += (ports.empty() ? "" : ",") + std::to_string(p);
        notes.push_back({kCredentialLayer, h.file, h.pattern,
                         "\"" + h.pattern + ":" + ports +
                             "\": OpenShell injects its credential at its proxy (" + h.evidence +
                             "); toolcage's relay injects none",
                         "nothing to do; this says which layer holds the secret", true});
    }
}

}  // namespace toolcage::lint
