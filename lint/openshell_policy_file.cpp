#include "lint/openshell_policy_file.h"

#include "lint/yaml_read.h"

namespace toolcage::lint {

// Schema followed (OpenShell's policy schema reference): `version: 1`, then
// `network_policies.<key>` with `name`, `endpoints[]` and `binaries[]`. The other top-level
// sections (filesystem_policy, landlock, process) have nothing the lint compares.
OpenShellPolicy parse_openshell_policy(const std::string& text, const std::string& file) {
    OpenShellPolicy policy;
    policy.file = file;
    // `openshell policy get NAME --full` prints a header of revision facts ("Version: 3",
    // "Error: …", not always valid YAML) and the policy after a `---` line: read the policy.
    std::string policy_text = text;
    if (policy_text.starts_with("Version:"))
        if (auto dashes = policy_text.find("\n---\n"); dashes != std::string::npos)
            policy_text.erase(0, dashes + 5);
    for (const YAML::Node& doc : yaml::load_all(policy_text, file)) {
        if (doc.IsNull()) continue;
        if (!doc.IsMap())
            yaml::fail(file, "", "an OpenShell policy is a map",
                       "start with `version: 1` and `network_policies:`");
        std::string version = yaml::scalar(doc, "version", file, "");
        if (!version.empty() && version != "1")
            yaml::fail(file, "version", "schema version \"" + version + "\" is not known",
                       "write `version: 1`, the schema OpenShell reads");
        const YAML::Node rules = doc["network_policies"];
        if (!rules.IsDefined() || rules.IsNull()) continue;
        if (!rules.IsMap())
            yaml::fail(file, "network_policies", "must be a map of named rules",
                       "write `network_policies:` then `  my_rule:` with endpoints and binaries");
        for (auto it = rules.begin(); it != rules.end(); ++it) {
            NetworkRule rule;
            rule.key = it->first.Scalar();
            const std::string field = "network_policies." + rule.key;
            const YAML::Node body = it->second;
            if (!body.IsMap())
                yaml::fail(file, field, "a rule is a map", "give it `endpoints:` and `binaries:`");
            rule.name = yaml::scalar(body, "name", file, field);
            if (rule.name.empty()) rule.name = rule.key;
            const YAML::Node endpoints = body["endpoints"];
            if (endpoints.IsDefined() && !endpoints.IsNull()) {
                if (!endpoints.IsSequence())
                    yaml::fail(file, field + ".endpoints", "must be a list",
                               "write `endpoints:` then `- host: …` items");
                for (std::size_t i = 0; i < endpoints.size(); ++i)
                    rule.endpoints.push_back(yaml::endpoint(
                        endpoints[i], file, field + ".endpoints[" + std::to_string(i) + "]"));
            }
            rule.binaries = yaml::binaries(body["binaries"], file, field + ".binaries");
            policy.rules.push_back(std::move(rule));
        }
    }
    return policy;
}

OpenShellPolicy read_openshell_policy_file(const std::string& path) {
    return parse_openshell_policy(yaml::read_text(path, "the OpenShell policy"), path);
}

}  // namespace toolcage::lint
