// OpenShell provider profiles (YAML or JSON, as `openshell provider profile export` and
// `openshell provider list-profiles -o yaml` write them): which credentials each provider holds
// and the endpoints they are bound to. OpenShell treats every endpoint of a profile that
// declares credentials as credentialed.
#pragma once

#include <string>
#include <vector>

#include "lint/openshell_policy_file.h"

namespace toolcage::lint {

struct ProviderProfile {
    std::string id;
    std::vector<std::string> env_vars;  // the credentials' environment variables
    std::vector<Endpoint> endpoints;    // where those credentials are bound
    std::string file;
    std::string field;  // e.g. "[2]" in a list of profiles, "" for a single profile
};

// One profile (a map with `id`), a list of them, a map with a `profiles:` list, or several
// YAML documents. Throws Error naming the file, the field and the fix.
std::vector<ProviderProfile> read_providers_file(const std::string& path);
std::vector<ProviderProfile> parse_providers(const std::string& text, const std::string& file);

}  // namespace toolcage::lint
