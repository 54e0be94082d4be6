#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "common/host_pattern.h"
#include "lint/checks.h"
#include "lint/endpoint_shape.h"

namespace toolcage::lint {
namespace {

struct Ref {
    const Endpoint* e;
    std::string file;
    bool generated;
};

// Endpoints of one host pattern and one shape: no two of them can conflict.
struct Group {
    std::string host;
    std::vector<std::size_t> members;  // indexes into refs
};

std::string fix_for(const Ref& a, const Ref& b) {
    if (a.generated || b.generated)
        return "generate the relay's policy against this one (`toolcage policy openshell NAME --base "
               "FILE`), which gives the relay's endpoint the shape already there; or remove the host "
               "from relay.allow";
    return "give both endpoints the same tls, protocol, enforcement and allowed_ips (and the other "
           "fields named), or narrow one host so that they no longer overlap";
}

// The host's index key: for a literal host the host itself; for a pattern, the literal tail
// after its last `*` from that tail's first dot (".github.com" for `**.github.com`). Two hosts
// can overlap only if one key is a dot-suffix of the other's, so each endpoint is compared with
// those whose key is a dot-suffix of its own (and itself): a handful of lookups, not every pair.
std::string index_key(const std::string& host) {
    auto star = host.rfind('*');
    if (star == std::string::npos) return host;
    auto dot = host.find('.', star);
    return dot == std::string::npos ? "" : host.substr(dot);
}

std::vector<std::string> dot_suffixes(const std::string& key) {
    std::vector<std::string> out = {key};
    for (std::size_t i = key.find('.', 1); i != std::string::npos; i = key.find('.', i + 1))
        out.push_back(key.substr(i));
    if (!key.empty()) out.push_back("");
    return out;
}

}  // namespace

void check_ambiguity(const LintInput& input, Findings& out) {
    std::vector<Ref> refs;
    std::set<std::string> seen_provider;  // a provider's endpoints, once (profile and `_provider_` rule)
    auto provider_seen = [&](const Endpoint& e) {
        std::string id = e.host + "|" + shape_key(e) + "|" + e.path;
        for (auto p : e.ports) id += "," + std::to_string(p);
        return !seen_provider.insert(id).second;
    };
    if (input.generated)
        for (const auto& r : input.generated->rules)
            for (const auto& e : r.endpoints) refs.push_back({&e, input.generated->file, true});
    for (const auto& p : input.openshell)
        for (const auto& r : p.rules)
            for (const auto& e : r.endpoints) {
                if (r.provider_layer() && provider_seen(e)) continue;
                refs.push_back({&e, p.file, false});
            }
    // With Providers v2, each attached profile's endpoints join the effective policy.
    for (const auto& p : input.providers)
        for (const auto& e : p.endpoints)
            if (!provider_seen(e)) refs.push_back({&e, p.file, false});

    // Group by (port, host, shape); index groups by port and host key.
    std::map<std::tuple<std::uint32_t, std::string, std::string>, std::size_t> group_of;
    std::vector<Group> groups;
    std::vector<std::uint32_t> group_port;
    std::unordered_map<std::string, std::vector<std::size_t>> by_key;  // "port|key" -> groups
    std::vector<std::size_t> hostless;                                 // groups with no host
    for (std::size_t i = 0; i < refs.size(); ++i) {
        const Endpoint& e = *refs[i].e;
        std::set<std::uint32_t> ports(e.ports.begin(), e.ports.end());
        for (auto port : ports) {
            auto [it, fresh] = group_of.try_emplace({port, e.host, shape_key(e)}, groups.size());
            if (fresh) {
                groups.push_back({e.host, {}});
                group_port.push_back(port);
                if (e.host.empty())
                    hostless.push_back(it->second);
                else
                    by_key[std::to_string(port) + "|" + index_key(e.host)].push_back(it->second);
            }
            groups[it->second].members.push_back(i);
        }
    }

    std::set<std::pair<std::size_t, std::size_t>> reported;  // endpoint pairs (a port each is enough)
    auto compare = [&](std::size_t ga, std::size_t gb) {
        const Group& A = groups[ga];
        const Group& B = groups[gb];
        if (!A.host.empty() && !B.host.empty() && !host_patterns_overlap(A.host, B.host)) return;
        // Two groups differ in shape; where they differ in a connection field their first
        // members conflict at once. Only request fields compare paths, and then the members are
        // walked until a pair whose paths meet (groups of one host and one shape are small).
        for (std::size_t i : A.members)
            for (std::size_t j : B.members) {
                if (i == j) continue;
                auto diff = endpoint_conflicts(*refs[i].e, *refs[j].e);
                if (diff.empty()) continue;
                std::size_t lo = std::min(i, j), hi = std::max(i, j);
                if (!reported.insert({lo, hi}).second) return;
                std::string what;
                for (const auto& d : diff) what += (what.empty() ? "" : "; ") + d;
                const Ref& a = refs[lo];
                const Ref& b = refs[hi];
                out.push_back({kAmbiguity, b.file, b.e->field,
                               "\"" + (b.e->host.empty() ? std::string("<any-host>") : b.e->host) + "\" port " +
                                   std::to_string(group_port[ga]) + " is shaped differently here and in " +
                                   a.file + " at " + a.e->field + " (" + what +
                                   "): OpenShell refuses the whole submission (network endpoint "
                                   "ambiguity validation failed)",
                               fix_for(a, b)});
                return;  // one finding per pair of groups
            }
    };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::string port = std::to_string(group_port[g]);
        if (groups[g].host.empty()) {
            for (std::size_t h = 0; h < groups.size(); ++h)
                if (h != g && group_port[h] == group_port[g] && (!groups[h].host.empty() || h > g)) compare(g, h);
            continue;
        }
        for (const auto& suffix : dot_suffixes(index_key(groups[g].host))) {
            auto it = by_key.find(port + "|" + suffix);
            if (it == by_key.end()) continue;
            for (std::size_t h : it->second)
                // Same key: each pair once. A shorter key: only from the longer side.
                if (suffix != index_key(groups[g].host) ? true : h > g) compare(g, h);
        }
    }
}

}  // namespace toolcage::lint
