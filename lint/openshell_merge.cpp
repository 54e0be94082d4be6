#include "lint/openshell_merge.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "common/error.h"
#include "common/host_pattern.h"
#include "lint/endpoint_shape.h"
#include "lint/openshell_policy_file.h"
#include "lint/yaml_read.h"

namespace toolcage::lint {
namespace {

struct Seen {
    const Endpoint* e;
    const NetworkRule* rule;
};

bool credentialed(const Seen& s) { return s.rule->provider_layer() || s.e->has_credential_binding; }

std::string where(const Seen& s) { return s.e->field + " (\"" + s.e->host + "\")"; }

// Whether a fail-closed middleware of the base may select `host`: OpenShell refuses a
// `tls: skip` endpoint there (a skipped tunnel cannot be inspected).
bool inspected_by_middleware(const OpenShellPolicy& base, const std::string& host) {
    for (const auto& m : base.middlewares) {
        if (!m.fail_closed()) continue;
        bool in = std::any_of(m.include.begin(), m.include.end(),
                              [&](const std::string& p) { return host_patterns_overlap(p, host); });
        bool out = std::any_of(m.exclude.begin(), m.exclude.end(),
                               [&](const std::string& p) { return host_pattern_covers(p, host); });
        if (in && !out) return true;
    }
    return false;
}

// The relay's endpoint for `r`, shaped against the base endpoints it can meet.
Endpoint shaped(const RelayEndpoint& r, const std::vector<Seen>& meets, bool middleware,
                const std::string& file) {
    Endpoint e;
    e.host = r.host;
    e.ports = {r.port};
    if (r.credentialed) {
        // Reached with the agent's credential on purpose: the inspected shape OpenShell's own
        // provider profiles give a model API.
        e.protocol = "rest";
        e.access = "read-write";
        e.enforcement = "enforce";
    } else if (meets.empty()) {
        // Nothing else decides this host: a raw tunnel, no termination; unless a fail-closed
        // middleware must see it, and then OpenShell's default handling.
        if (!middleware) e.tls = "skip";
    } else {
        for (const auto& m : meets)
            if (credentialed(m))
                throw Error(file + ": " + where(m) + " holds a credential OpenShell injects, and relay.allow "
                            "lists \"" + r.entry + "\": the relay's traffic would carry it; remove \"" +
                            r.entry + "\" from relay.allow, or add it to relay.credentialed if reaching "
                            "it with that credential is the worker's job");
        // Only the connection fields: the request pipeline stays the base's to decide.
        const Endpoint& first = *meets.front().e;
        std::string t = first.tls;
        std::transform(t.begin(), t.end(), t.begin(), ::tolower);
        if (t == "skip") e.tls = "skip";
        std::string p = first.protocol;
        std::transform(p.begin(), p.end(), p.begin(), ::tolower);
        if (p == "tcp") e.protocol = "tcp";
        e.allowed_ips = first.allowed_ips;
    }
    for (const auto& m : meets) {
        auto diff = endpoint_conflicts(e, *m.e);
        if (diff.empty()) continue;
        std::string what;
        for (const auto& d : diff) what += (what.empty() ? "" : "; ") + d;
        throw Error(file + ": relay.allow entry \"" + r.entry + "\" cannot join " + where(m) + " (" + what +
                    (meets.size() > 1 ? "; the base shapes the hosts it covers differently" : "") +
                    "); list narrower hosts in relay.allow, each of which the base shapes one way");
    }
    return e;
}

YAML::Node endpoint_node(const Endpoint& e) {
    YAML::Node n;
    n["host"] = e.host;
    n["port"] = e.ports.front();
    if (!e.protocol.empty()) n["protocol"] = e.protocol;
    if (!e.tls.empty()) n["tls"] = e.tls;
    if (!e.enforcement.empty()) n["enforcement"] = e.enforcement;
    if (!e.access.empty()) n["access"] = e.access;
    for (const auto& ip : e.allowed_ips) n["allowed_ips"].push_back(ip);
    return n;
}

}  // namespace

std::string merged_policy_yaml(const RelayAccess& relay, const std::string& base_text,
                               const std::string& base_file) {
    // Read as OpenShell reads it: a base OpenShell refuses is refused here.
    const OpenShellPolicy base = parse_openshell_policy(base_text, base_file);
    YAML::Node doc = yaml::load_one(policy_document_text(base_text), base_file, "the base policy");

    std::vector<Seen> seen;
    for (const auto& rule : base.rules)
        if (rule.key != relay.rule_key)  // merged before: replaced, not compared with itself
            for (const auto& e : rule.endpoints) seen.push_back({&e, &rule});

    YAML::Node rule;
    rule["name"] = relay.display_name;
    for (const auto& r : relay.endpoints) {
        std::vector<Seen> meets;
        for (const auto& s : seen)
            if (std::find(s.e->ports.begin(), s.e->ports.end(), r.port) != s.e->ports.end() &&
                (s.e->host.empty() || host_patterns_overlap(s.e->host, r.host)))
                meets.push_back(s);
        rule["endpoints"].push_back(
            endpoint_node(shaped(r, meets, inspected_by_middleware(base, r.host), base_file)));
    }
    YAML::Node binary;
    binary["path"] = relay.relay_binary;
    rule["binaries"].push_back(binary);

    // The output is submitted with `openshell policy set`: the gateway composes provider layers
    // in itself and refuses them in a submission.
    YAML::Node policies(YAML::NodeType::Map);
    if (doc["network_policies"].IsMap())
        for (auto it = doc["network_policies"].begin(); it != doc["network_policies"].end(); ++it) {
            const std::string key = it->first.Scalar();
            if (!key.starts_with("_provider_") && key != relay.rule_key) policies[key] = it->second;
        }
    policies[relay.rule_key] = rule;
    doc["network_policies"] = policies;

    YAML::Emitter out;
    out << doc;
    return "# OpenShell policy " + base_file + " with toolcage-relay's access merged in by toolcage\n" +
           "# (" + relay.rule_key + "; only toolcage-relay may reach its endpoints).\n" + out.c_str() + "\n";
}

}  // namespace toolcage::lint
