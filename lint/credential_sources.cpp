#include "lint/credential_sources.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "lint/credential_hosts.h"

namespace toolcage::lint {
namespace {

struct HostPort {
    std::string host;
    std::uint32_t port = 443;
};

// "https://api.example.com:8443/v1" -> {api.example.com, 8443}; nullopt for anything else.
std::optional<HostPort> url_host(std::string url) {
    for (auto& c : url)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    std::uint32_t port = 0;
    if (url.starts_with("https://"))
        url.erase(0, 8), port = 443;
    else if (url.starts_with("http://"))
        url.erase(0, 7), port = 80;
    else if (url.starts_with("wss://"))
        url.erase(0, 6), port = 443;
    else
        return std::nullopt;
    std::string authority = url.substr(0, url.find_first_of("/?#"));
    if (auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
    HostPort hp{authority, port};
    if (auto colon = authority.rfind(':');
        colon != std::string::npos && authority.find(']') == std::string::npos) {
        std::string digits = authority.substr(colon + 1);
        hp.host = authority.substr(0, colon);
        if (digits.empty() || digits.size() > 5 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        hp.port = static_cast<std::uint32_t>(std::stoul(digits));
    }
    if (hp.host.empty()) return std::nullopt;
    return hp;
}

void from_env_file(const EnvFile& env, std::vector<CredentialHost>& out, Findings& notes) {
    std::map<std::string, const EnvVariable*> by_name;
    for (const auto& v : env.variables) by_name[v.name] = &v;
    for (const auto& v : env.variables) {
        const CredentialVariable* known = find_credential_variable(v.name);
        const std::string where = env.file + " line " + std::to_string(v.line);
        if (!known) {
            if (looks_like_credential(v.name))
                notes.push_back(
                    {kUnknownCredential, env.file, v.name,
                     v.name + " (line " + std::to_string(v.line) +
                         ") looks like a credential, and toolcage does not know which "
                         "host accepts it",
                     "check by hand that no host on relay.allow accepts it, or pass the "
                     "OpenShell provider that holds it with --providers FILE",
                     true});
            continue;
        }
        std::string evidence = v.name + " in " + where + " (" + std::string(known->reason) + ")";
        std::string_view hosts = known->hosts;
        while (!hosts.empty()) {
            auto space = hosts.find(' ');
            out.push_back({std::string(hosts.substr(0, space)), {443}, evidence, false, env.file});
            hosts = space == std::string_view::npos ? "" : hosts.substr(space + 1);
        }
        // A base URL sends the key to another host (a proxy, a regional endpoint).
        if (!known->base_url.empty())
            if (auto it = by_name.find(std::string(known->base_url)); it != by_name.end())
                if (auto hp = url_host(it->second->value))
                    out.push_back({hp->host,
                                   {hp->port},
                                   evidence + ", sent to " + it->first + " (line " +
                                       std::to_string(it->second->line) + ")",
                                   false,
                                   env.file});
    }
}

}  // namespace

std::vector<CredentialHost> credential_hosts(const LintInput& input, Findings& notes) {
    std::vector<CredentialHost> out;
    // A provider attached to the sandbox shows as a `_provider_<name>` rule in `openshell policy
    // get --full` and as its profile in --providers: each host once, whichever is given.
    auto known = [&](const Endpoint& e) {
        return std::any_of(out.begin(), out.end(), [&](const CredentialHost& h) {
            return h.provider && h.pattern == e.host && h.ports == e.ports;
        });
    };
    for (const auto& policy : input.openshell)
        for (const auto& rule : policy.rules)
            if (rule.provider_layer())
                for (const auto& e : rule.endpoints)
                    if (!known(e))
                        out.push_back({e.host, e.ports,
                                       "provider layer \"" + rule.key + "\" in " + policy.file +
                                           " at " + e.field,
                                       true, policy.file});
    for (const auto& p : input.providers) {
        if (p.env_vars.empty()) continue;  // a profile without credentials binds nothing
        std::string vars;
        for (const auto& v : p.env_vars) vars += (vars.empty() ? "" : ", ") + v;
        for (const auto& e : p.endpoints)
            if (!known(e))
                out.push_back(
                    {e.host, e.ports,
                     "provider \"" + p.id + "\" (" + vars + ") in " + p.file + " at " + e.field,
                     true, p.file});
    }
    for (const auto& policy : input.openshell)
        for (const auto& rule : policy.rules)
            for (const auto& e : rule.endpoints)
                if (!e.credential_binding.empty())
                    out.push_back({e.host, e.ports,
                                   "credential_binding to provider \"" + e.credential_binding +
                                       "\" in " + policy.file + " at " + e.field,
                                   true, policy.file});
    for (const auto& env : input.env_files) from_env_file(env, out, notes);
    return out;
}

}  // namespace toolcage::lint
