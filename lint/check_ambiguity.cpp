#include <algorithm>
#include <set>
#include <string>

#include "common/host_pattern.h"
#include "lint/checks.h"

namespace toolcage::lint {
namespace {

struct Ref {
    const Endpoint* e;
    std::string file;
    bool generated;
};

// OpenShell's normalisations (crates/openshell-policy/src/ambiguity.rs): tls is skip or
// auto-detect, enforcement is enforce or audit (the default), tcp counts as no L7 protocol.
std::string tls_of(const Endpoint& e) { return e.tls == "skip" ? "skip" : "auto-detect"; }
std::string enforcement_of(const Endpoint& e) { return e.enforcement == "enforce" ? "enforce" : "audit"; }
std::string protocol_of(const Endpoint& e) { return e.protocol == "tcp" ? "" : e.protocol; }
std::string shown(const std::string& v) { return v.empty() ? "none" : v; }

std::string ips_of(const Endpoint& e) {
    std::set<std::string> ips(e.allowed_ips.begin(), e.allowed_ips.end());
    std::string out;
    for (const auto& ip : ips) out += (out.empty() ? "" : ",") + ip;
    return out;
}

// Endpoints that only authorise a destination (plain L4) take no part in choosing how a request
// is parsed; the others carry request-pipeline metadata that must agree.
bool carries_request_metadata(const Endpoint& e) {
    return !protocol_of(e).empty() || !e.allowed_ips.empty() || !e.tls.empty() ||
           !e.credential_binding.empty();
}

std::size_t specificity(const std::string& path) {
    return static_cast<std::size_t>(std::count_if(path.begin(), path.end(), [](char c) { return c != '*'; }));
}

// Paths overlap unless both are plain and differ (OpenShell matches globs; a doubt counts as an
// overlap here, which can only add a finding).
bool paths_overlap(const std::string& a, const std::string& b) {
    auto any = [](const std::string& p) { return p.empty() || p == "**" || p == "/**"; };
    if (any(a) || any(b)) return true;
    if (a.find_first_of("*?[") == std::string::npos && b.find_first_of("*?[") == std::string::npos)
        return a == b;
    return true;
}

std::vector<std::uint32_t> shared_ports(const Endpoint& a, const Endpoint& b) {
    std::vector<std::uint32_t> out;
    for (auto p : a.ports)
        if (std::find(b.ports.begin(), b.ports.end(), p) != b.ports.end() &&
            std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
    return out;
}

void differ(std::vector<std::string>& out, const char* field, const std::string& a, const std::string& b) {
    if (a != b) out.push_back(std::string(field) + " " + shown(a) + " vs " + shown(b));
}

std::vector<std::string> conflicts(const Endpoint& a, const Endpoint& b) {
    std::vector<std::string> out;
    differ(out, "protocol tcp", a.protocol == "tcp" ? "yes" : "no", b.protocol == "tcp" ? "yes" : "no");
    differ(out, "tls", tls_of(a), tls_of(b));
    differ(out, "allowed_ips", ips_of(a), ips_of(b));
    if (carries_request_metadata(a) && carries_request_metadata(b) && paths_overlap(a.path, b.path) &&
        specificity(a.path) == specificity(b.path)) {
        differ(out, "protocol", protocol_of(a), protocol_of(b));
        differ(out, "enforcement", enforcement_of(a), enforcement_of(b));
        differ(out, "credential_binding", a.credential_binding, b.credential_binding);
    }
    return out;
}

std::string fix_for(const Ref& a, const Ref& b) {
    if (a.generated || b.generated)
        return "make the two endpoints agree: if the worker must reach this host with its credential, "
               "add it to relay.credentialed (the relay's endpoint then takes OpenShell's inspected "
               "shape: protocol rest, enforcement enforce); if not, remove it from relay.allow, or "
               "give the other endpoint `tls: skip` and no protocol";
    return "give both endpoints the same tls, protocol, enforcement and allowed_ips, or narrow one "
           "host so that they no longer overlap";
}

}  // namespace

void check_ambiguity(const LintInput& input, Findings& out) {
    std::vector<Ref> refs;
    if (input.generated)
        for (const auto& r : input.generated->rules)
            for (const auto& e : r.endpoints) refs.push_back({&e, input.generated->file, true});
    for (const auto& p : input.openshell)
        for (const auto& r : p.rules)
            for (const auto& e : r.endpoints) refs.push_back({&e, p.file, false});
    // With Providers v2, each attached profile's endpoints join the effective policy.
    for (const auto& p : input.providers)
        for (const auto& e : p.endpoints) refs.push_back({&e, p.file, false});

    for (std::size_t i = 0; i < refs.size(); ++i)
        for (std::size_t j = i + 1; j < refs.size(); ++j) {
            const Endpoint& a = *refs[i].e;
            const Endpoint& b = *refs[j].e;
            auto ports = shared_ports(a, b);
            bool hosts = a.host.empty() || b.host.empty() || host_patterns_overlap(a.host, b.host);
            if (ports.empty() || !hosts) continue;
            auto diff = conflicts(a, b);
            if (diff.empty()) continue;
            std::string what;
            for (const auto& d : diff) what += (what.empty() ? "" : "; ") + d;
            out.push_back({kAmbiguity, refs[j].file, b.field,
                           "\"" + shown(b.host) + "\" port " + std::to_string(ports.front()) +
                               " is shaped differently here and in " + refs[i].file + " at " + a.field +
                               " (" + what +
                               "): OpenShell refuses the whole submission (network endpoint "
                               "ambiguity validation failed)",
                           fix_for(refs[i], refs[j])});
        }
}

}  // namespace toolcage::lint
