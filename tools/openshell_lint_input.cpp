#include "tools/openshell_lint_input.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cage/relay_launch.h"
#include "common/error.h"

namespace toolcage::cli {
namespace {

// Where an entry of relay.<list> is written: the last file of the extends chain that lists it
// (a policy inherits its base's entries), with its JSON pointer there.
// `matches` says whether an item of the list is the entry. `section`: "relay" or "cage".
lint::PolicyEntry where_written(const Policy& p, const char* list, const std::string& entry,
                                std::size_t merged_index,
                                const std::function<bool(const nlohmann::json&)>& matches = {},
                                const std::string& section = "relay") {
    for (auto file = p.chain.rbegin(); file != p.chain.rend(); ++file) {
        std::ifstream in(*file);
        std::stringstream text;
        text << in.rdbuf();
        nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false, true);
        if (doc.is_discarded() || !doc.is_object() || !doc.contains(section)) continue;
        const nlohmann::json& r = doc[section];
        if (!r.is_object() || !r.contains(list)) continue;
        if (r[list].is_string() && r[list] == entry)
            return {entry, *file, "/" + section + "/" + list};
        if (!r[list].is_array()) continue;
        for (std::size_t i = 0; i < r[list].size(); ++i)
            if (matches ? matches(r[list][i]) : r[list][i] == entry)
                return {entry, *file,
                        "/" + section + "/" + std::string(list) + "/" + std::to_string(i)};
    }
    const std::string tail = merged_index == SIZE_MAX ? "" : "/" + std::to_string(merged_index);
    return {entry, p.file.empty() ? p.name : p.file,
            "/" + section + "/" + std::string(list) + tail};
}

// cage.read, cage.write and cage.execute, {home} filled from $HOME (the user running the lint
// is the user whose steps run); entries with other placeholders stay as written.
std::vector<lint::PolicyEntry> grants(const Policy& p) {
    std::vector<lint::PolicyEntry> out;
    const char* home = std::getenv("HOME");
    for (const auto& [name, list] :
         {std::pair{"read", &p.cage.read}, std::pair{"write", &p.cage.write},
          std::pair{"execute", &p.cage.execute}})
        for (std::size_t i = 0; i < list->size(); ++i) {
            lint::PolicyEntry at = where_written(p, name, (*list)[i], i, {}, "cage");
            std::string filled = (*list)[i];
            if (filled.starts_with("{home}") && home && *home)
                filled = home + filled.substr(6);
            else if (filled.starts_with("~/") && home && *home)
                filled = home + filled.substr(1);
            out.push_back({filled, at.file, at.field});
        }
    return out;
}

std::vector<lint::PolicyEntry> entries(const Policy& written, const std::vector<std::string>& list,
                                       const char* name,
                                       const std::function<std::optional<std::string>()>& npm,
                                       std::vector<std::string>& notes) {
    std::vector<lint::PolicyEntry> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        lint::PolicyEntry at = where_written(written, name, list[i], i);
        for (const auto& filled : cage::expand_relay_allow({list[i]}, npm, notes))
            out.push_back({filled, at.file, at.field});
    }
    return out;
}

// One answer for the whole command, asked at most once.
std::function<std::optional<std::string>()> npm_registry_source(const std::string& given) {
    auto cache = std::make_shared<std::optional<std::optional<std::string>>>();
    return [given, cache]() -> std::optional<std::string> {
        if (!given.empty()) return given;
        if (!*cache) *cache = cage::npm_config_registry();
        return **cache;
    };
}

}  // namespace

Policy with_placeholders_filled(Policy policy, const std::string& npm_registry,
                                std::vector<std::string>& notes) {
    auto npm = npm_registry_source(npm_registry);
    policy.relay.allow = cage::expand_relay_allow(policy.relay.allow, npm, notes);
    std::vector<std::string> ignored;  // the same placeholder, already explained
    policy.relay.credentialed = cage::expand_relay_allow(policy.relay.credentialed, npm, ignored);
    return policy;
}

std::string relay_binary_path(const std::string& given) {
    if (!given.empty()) return given;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw Error("cannot find the toolcage-relay binary; pass --relay PATH");
    return (exe.parent_path() / "toolcage-relay").string();
}

lint::LintInput lint_input(const Policy& policy, const std::string& generated_yaml,
                           const OpenShellOptions& o) {
    lint::LintInput in;
    in.policy_name = policy.name;
    // Filled again entry by entry, so that each keeps the file and pointer it is written at.
    std::vector<std::string> notes;
    auto npm = npm_registry_source(o.npm_registry);
    in.allow = entries(policy, policy.relay.allow, "allow", npm, notes);
    in.credentialed = entries(policy, policy.relay.credentialed, "credentialed", npm, notes);
    in.inspect = entries(policy, policy.relay.inspect, "inspect", npm, notes);
    for (std::size_t i = 0; i < policy.relay.credentials.size(); ++i) {
        const RelayCredential& c = policy.relay.credentials[i];
        lint::PolicyEntry at =
            where_written(policy, "credentials", c.host, i, [&](const nlohmann::json& j) {
                return j.is_object() && j.value("host", "") == c.host &&
                       j.value("placeholder_env", "") == c.placeholder_env;
            });
        in.credentials.push_back({c, at.file, at.field});
    }
    if (!policy.relay.upstream_ca.empty())
        in.upstream_ca = where_written(policy, "upstream_ca", policy.relay.upstream_ca, SIZE_MAX);
    in.grants = grants(policy);
    in.relay_binary = relay_binary_path(o.relay_path);
    if (!generated_yaml.empty())
        in.generated = lint::parse_openshell_policy(
            generated_yaml,
            "the relay's OpenShell policy (toolcage policy openshell " + policy.name + ")");
    for (const auto& f : o.openshell_policies)
        in.openshell.push_back(lint::read_openshell_policy_file(f));
    if (!o.providers.empty()) in.providers = lint::read_providers_file(o.providers);
    for (const auto& f : o.agent_envs) in.env_files.push_back({f, lint::read_agent_env_file(f)});
    return in;
}

}  // namespace toolcage::cli
