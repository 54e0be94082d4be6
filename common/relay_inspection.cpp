#include "common/relay_inspection.h"

#include <set>

#include "common/error.h"
#include "common/host_names.h"
#include "common/host_pattern.h"

namespace toolcage {

bool allow_entry_covers(const std::string& wide, const std::string& narrow) {
    std::string problem;
    auto w = read_allow_entry(wide, problem);
    auto n = read_allow_entry(narrow, problem);
    if (!w || !n || w->port != n->port || w->ip != n->ip) return false;
    if (w->ip) return w->host == n->host;
    return host_pattern_covers(relay_host_pattern(*w), relay_host_pattern(*n));
}

namespace {

bool covered_by_any(const std::string& entry, const std::vector<std::string>& list) {
    for (const auto& l : list)
        if (allow_entry_covers(l, entry)) return true;
    return false;
}

}  // namespace

void check_relay_inspection(const Policy& p) {
    const RelayPolicy& r = p.relay;
    const std::string file = p.file.empty() ? "policy \"" + p.name + "\"" : p.file;
    auto fail = [&](const std::string& ptr, const std::string& value, const std::string& problem) {
        throw Error(file + ": " + ptr + ": \"" + value + "\": " + problem);
    };
    for (std::size_t i = 0; i < r.inspect.size(); ++i) {
        const std::string& e = r.inspect[i];
        const std::string ptr = "/relay/inspect/" + std::to_string(i);
        std::string problem;
        auto entry = read_allow_entry(e, problem);
        if (!entry) fail(ptr, e, problem);
        if (entry->ip)
            fail(ptr, e,
                 "inspection needs a host name (the certificate the step is shown names it); "
                 "allow the host by name");
        if (!covered_by_any(e, r.allow))
            fail(ptr, e,
                 "not allowed: an inspected host must also be in relay.allow; add \"" + e +
                     "\" to relay.allow, or drop it from relay.inspect");
    }
    std::set<std::string> envs;
    for (std::size_t i = 0; i < r.credentials.size(); ++i) {
        const RelayCredential& c = r.credentials[i];
        const std::string ptr = "/relay/credentials/" + std::to_string(i);
        std::string problem;
        auto entry = read_allow_entry(c.host, problem);
        if (!entry) fail(ptr + "/host", c.host, problem);
        if (entry->wildcard)
            fail(ptr + "/host", c.host,
                 "a credential is bound to one host, not a wildcard; name the host");
        if (!covered_by_any(c.host, r.inspect))
            fail(ptr + "/host", c.host,
                 "not inspected: the relay can add a credential only to requests it reads; add \"" +
                     c.host + "\" to relay.inspect (and relay.allow)");
        if (!envs.insert(c.placeholder_env).second)
            fail(ptr + "/placeholder_env", c.placeholder_env,
                 "named by two credentials; give each credential a variable of its own");
        for (std::size_t j = 0; j < i; ++j)
            if (allow_entry_covers(r.credentials[j].host, c.host))
                fail(ptr + "/host", c.host,
                     "already bound by /relay/credentials/" + std::to_string(j) +
                         "; bind one credential to a host");
    }
    for (const auto& [host, rules] : r.requests) {
        if (!covered_by_any(host, r.inspect))
            fail("/relay/requests/" + host, host,
                 "not inspected: request rules apply only to hosts the relay reads; add \"" + host +
                     "\" to relay.inspect (and relay.allow)");
    }
}

}  // namespace toolcage
