#include <algorithm>
#include <string>

#include "common/host_names.h"
#include "common/host_pattern.h"
#include "lint/checks.h"

namespace toolcage::lint {
namespace {

bool has_port(const std::vector<std::uint32_t>& ports, std::uint32_t port) {
    return std::find(ports.begin(), ports.end(), port) != ports.end();
}

// Declared when a relay.credentialed entry on the same port covers the allow entry or the
// credential host (`api.github.com` declared under `*.github.com`: the rest carries no key).
bool declared(const LintInput& input, const std::string& pattern, std::uint32_t port,
              const CredentialHost& host) {
    for (const auto& c : input.credentialed) {
        std::string problem;
        auto entry = read_allow_entry(c.entry, problem);
        if (!entry || entry->port != port) continue;
        std::string declared_pattern = relay_host_pattern(*entry);
        if (host_pattern_covers(declared_pattern, pattern) ||
            host_pattern_covers(declared_pattern, host.pattern))
            return true;
    }
    return false;
}

}  // namespace

void check_credential_hosts(const LintInput& input, const std::vector<CredentialHost>& hosts,
                            Findings& out) {
    // An inspected host is also allowed, so the allow entry is flagged too; this one says that
    // the relay reads and forwards the requests OpenShell then puts its credential into.
    for (const auto& item : input.inspect) {
        std::string problem;
        auto entry = read_allow_entry(item.entry, problem);
        if (!entry || entry->ip) continue;
        const std::string pattern = relay_host_pattern(*entry);
        std::string evidence;
        for (const auto& h : hosts) {
            if (!h.provider || h.pattern.empty() || !has_port(h.ports, entry->port)) continue;
            if (!host_patterns_overlap(pattern, h.pattern) ||
                declared(input, pattern, entry->port, h))
                continue;
            evidence += (evidence.empty() ? "" : "; ") + h.pattern + ":" +
                        std::to_string(entry->port) + " gets a credential from " + h.evidence;
        }
        if (evidence.empty()) continue;
        out.push_back(
            {kCredentialHost, item.file, item.field,
             "\"" + item.entry +
                 "\" is inspected: the relay reads and forwards every request to a host "
                 "where OpenShell injects a credential: " +
                 evidence + ". Any program the step runs could send requests that carry it",
             "remove \"" + item.entry +
                 "\" from relay.inspect and relay.allow; or, only if reaching it with OpenShell's "
                 "credential is the step's job, add \"" +
                 item.entry + "\" to relay.credentialed"});
    }
    for (const auto& item : input.allow) {
        std::string problem;
        auto entry = read_allow_entry(item.entry, problem);
        if (!entry || entry->ip) continue;  // the policy's validation already named it
        const std::string pattern = relay_host_pattern(*entry);
        std::string evidence;
        for (const auto& h : hosts) {
            if (h.pattern.empty() || !has_port(h.ports, entry->port)) continue;
            if (!host_patterns_overlap(pattern, h.pattern)) continue;
            if (declared(input, pattern, entry->port, h)) continue;
            evidence += (evidence.empty() ? "" : "; ") + h.pattern + ":" +
                        std::to_string(entry->port) + " holds " + h.evidence;
        }
        if (evidence.empty()) continue;
        out.push_back(
            {kCredentialHost, item.file, item.field,
             "\"" + item.entry +
                 "\" lets the relay reach a host that holds a credential: " + evidence +
                 ". Under OpenShell the key goes with every request the policy lets through, "
                 "whichever program sent it, so any program the worker runs could use it",
             "remove \"" + item.entry +
                 "\" from relay.allow; or, only if reaching it with that credential is the "
                 "worker's job (the model API), add \"" +
                 item.entry + "\" to relay.credentialed"});
    }
}

}  // namespace toolcage::lint
