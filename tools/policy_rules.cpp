// `toolcage policy rules [--long|--json]`: the built-in rules, from the classifier's catalogue
// (hook/classify/rules.cpp), for writing a policy's "overrides", then the hook's own rules
// (hook/decision/hook_rules.cpp), which no policy overrides: every rule id the hook answers with.
// With --policy, that policy's own rules first, checked as every load checks them.
#include <iostream>
#include <nlohmann/json.hpp>

#include "hook/classify/rules.h"
#include "hook/decision/hook_rules.h"
#include "tools/policy_access.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

namespace {

// What a policy rule matches, in words: "restic forget (args --prune) (paths home)".
std::string rule_matches(const ExtraRule& r) {
    std::string m = r.program;
    for (const auto& w : r.words) m += " " + w;
    if (!r.args.empty()) {
        m += " (args";
        for (const auto& a : r.args) m += " " + a;
        m += ")";
    }
    if (!r.paths.empty()) {
        m += " (paths";
        for (auto pc : r.paths) m += " " + std::string(to_string(pc));
        m += ")";
    }
    return m;
}

}  // namespace

int policy_rules(bool long_form, bool json, const std::string& policy_name) {
    const auto& rules = classify::builtin_rules();
    const auto& own = hook::hook_rules();
    // The policy's own rules, after the checks every load makes (their examples included).
    Policy policy;
    if (!policy_name.empty()) policy = load_checked_policy(policy_name);
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : policy.rules)
            out.push_back({{"id", r.id},
                           {"verdict", std::string(to_string(r.decision))},
                           {"matches", rule_matches(r)},
                           {"reason", r.reason},
                           {"overridable", true},
                           {"policy", policy.name},
                           {"match", r.match},
                           {"not_match", r.not_match}});
        for (const auto& r : rules)
            out.push_back({{"id", r.id},
                           {"verdict", r.verdict},
                           {"matches", r.matches},
                           {"reason", r.reason},
                           {"overridable", !hook::is_fixed_classifier_rule(r.id)}});
        for (const auto& r : own)
            out.push_back({{"id", r.id},
                           {"verdict", r.verdict},
                           {"matches", r.matches},
                           {"reason", r.reason},
                           {"overridable", false},
                           {"fixed_because", r.fixed}});
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    if (!long_form) {
        for (const auto& r : policy.rules) std::cout << r.id << '\n';
        for (const auto& r : rules) std::cout << r.id << '\n';
        for (const auto& r : own) std::cout << r.id << '\n';  // --long says which are fixed
        return 0;
    }
    std::size_t w = 0;
    for (const auto& r : rules) w = std::max(w, r.id.size());
    for (const auto& r : own) w = std::max(w, r.id.size());
    for (const auto& r : policy.rules) w = std::max(w, r.id.size());
    for (const auto& r : policy.rules) {
        std::cout << r.id << std::string(w + 2 - r.id.size(), ' ') << to_string(r.decision) << " (policy "
                  << policy.name << ")\n    matches: " << rule_matches(r) << "\n    why:     " << r.reason << '\n';
        for (const auto& m : r.match) std::cout << "    e.g.:    " << m << '\n';
        for (const auto& m : r.not_match) std::cout << "    not:     " << m << '\n';
    }
    for (const auto& r : rules)
        std::cout << r.id << std::string(w + 2 - r.id.size(), ' ') << r.verdict
                  << "\n    matches: " << r.matches << "\n    why:     " << r.reason << '\n';
    for (const auto& r : own)
        std::cout << r.id << std::string(w + 2 - r.id.size(), ' ') << r.verdict << " (fixed)"
                  << "\n    matches: " << r.matches << "\n    why:     " << r.reason
                  << "\n    fixed:   " << r.fixed << '\n';
    return 0;
}

}  // namespace toolcage::cli
