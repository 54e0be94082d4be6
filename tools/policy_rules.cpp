// `toolcage policy rules [--long|--json]`: the built-in rules, from the classifier's catalogue
// (hook/classify/rules.cpp), for writing a policy's "overrides", then the hook's own rules
// (hook/decision/hook_rules.cpp), which no policy overrides: every rule id the hook answers with.
#include <iostream>
#include <nlohmann/json.hpp>

#include "hook/classify/rules.h"
#include "hook/decision/hook_rules.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

int policy_rules(bool long_form, bool json) {
    const auto& rules = classify::builtin_rules();
    const auto& own = hook::hook_rules();
    if (json) {
        nlohmann::json out = nlohmann::json::array();
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
        for (const auto& r : rules) std::cout << r.id << '\n';
        for (const auto& r : own) std::cout << r.id << '\n';  // --long says which are fixed
        return 0;
    }
    std::size_t w = 0;
    for (const auto& r : rules) w = std::max(w, r.id.size());
    for (const auto& r : own) w = std::max(w, r.id.size());
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
