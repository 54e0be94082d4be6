#include "lint/providers_file.h"

#include "lint/yaml_read.h"

namespace toolcage::lint {
namespace {

ProviderProfile profile(const YAML::Node& node, const std::string& file, const std::string& field) {
    const std::string at = field.empty() ? "" : field + ".";
    if (!node.IsMap())
        yaml::fail(file, field, "a provider profile is a map",
                   "give `id:`, `credentials:` and `endpoints:` (as `openshell provider profile "
                   "export` writes them)");
    ProviderProfile p;
    p.file = file;
    p.field = field;
    p.id = yaml::scalar(node, "id", file, field);
    if (p.id.empty())
        yaml::fail(file, at + "id", "missing", "a provider profile names itself with `id:`");
    if (const YAML::Node creds = node["credentials"]; creds.IsDefined() && !creds.IsNull()) {
        if (!creds.IsSequence())
            yaml::fail(file, at + "credentials", "must be a list",
                       "write `credentials:` then `- name: …` with `env_vars: [KEY]`");
        for (std::size_t i = 0; i < creds.size(); ++i) {
            const std::string f = at + "credentials[" + std::to_string(i) + "]";
            const YAML::Node vars = creds[i].IsMap() ? creds[i]["env_vars"] : YAML::Node();
            if (!vars.IsDefined() || vars.IsNull()) {
                // A credential without variables (a token grant) still binds its endpoints.
                p.env_vars.push_back(p.id + ":" + std::to_string(i));
                continue;
            }
            if (!vars.IsSequence())
                yaml::fail(file, f + ".env_vars", "must be a list", "write `env_vars: [API_KEY]`");
            for (std::size_t j = 0; j < vars.size(); ++j)
                if (vars[j].IsScalar()) p.env_vars.push_back(vars[j].Scalar());
        }
    }
    if (const YAML::Node eps = node["endpoints"]; eps.IsDefined() && !eps.IsNull()) {
        if (!eps.IsSequence())
            yaml::fail(file, at + "endpoints", "must be a list", "write `endpoints:` then `- host: …`");
        for (std::size_t i = 0; i < eps.size(); ++i)
            p.endpoints.push_back(
                yaml::endpoint(eps[i], file, at + "endpoints[" + std::to_string(i) + "]", false));
    }
    return p;
}

void add_profiles(const YAML::Node& node, const std::string& file, const std::string& field,
                  std::vector<ProviderProfile>& out) {
    if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i)
            out.push_back(profile(node[i], file, field + "[" + std::to_string(i) + "]"));
        return;
    }
    if (node.IsMap() && !node["id"].IsDefined() && node["profiles"].IsDefined()) {
        add_profiles(node["profiles"], file, "profiles", out);
        return;
    }
    out.push_back(profile(node, file, field));
}

}  // namespace

std::vector<ProviderProfile> parse_providers(const std::string& text, const std::string& file) {
    std::vector<ProviderProfile> out;
    for (const YAML::Node& doc : yaml::load_all(text, file))
        if (!doc.IsNull()) add_profiles(doc, file, "", out);
    return out;
}

std::vector<ProviderProfile> read_providers_file(const std::string& path) {
    return parse_providers(yaml::read_text(path, "the providers file"), path);
}

}  // namespace toolcage::lint
