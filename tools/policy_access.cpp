#include "tools/policy_access.h"

#include <algorithm>

#include "common/error.h"
#include "common/policy_loader.h"
#include "hook/classify/classifier.h"
#include "hook/classify/rules.h"
#include "hook/decision/hook_rules.h"
#include "profiles/compiled_profiles.h"

namespace toolcage::cli {

std::vector<std::string> unknown_override_errors(const Policy& p) {
    std::vector<std::string> errors;
    for (const auto& [id, d] : p.overrides) {
        bool own = std::any_of(p.rules.begin(), p.rules.end(),
                               [&](const ExtraRule& r) { return r.id == id; });
        if (own) continue;
        if (hook::is_fixed_classifier_rule(id)) {
            errors.push_back(p.file + ": /overrides/" + id +
                             ": a bound of the hook's analysis, which no policy overrides (a command "
                             "judged from part of its reading could allow what the rest does); remove it "
                             "from overrides");
            continue;
        }
        if (classify::is_builtin_rule(id)) continue;
        if (const hook::HookRule* fixed = hook::find_hook_rule(id))
            errors.push_back(p.file + ": /overrides/" + id +
                             ": a rule of the hook itself, which no policy overrides (" + fixed->fixed +
                             "); remove it from overrides");
        else
            errors.push_back(
                p.file + ": /overrides/" + id +
                ": no rule has this id; `toolcage policy rules` lists the built-in ones");
    }
    return errors;
}

std::vector<std::string> classifier_policy_errors(const Policy& p) {
    std::vector<std::string> errors = unknown_override_errors(p);
    std::vector<std::string> examples = classify::rule_example_errors(p);
    errors.insert(errors.end(), examples.begin(), examples.end());
    return errors;
}

Policy load_checked_policy(const std::string& name_or_path) {
    Policy p = load_policy(name_or_path.empty() ? "default" : name_or_path, compiled_profiles());
    if (p.overrides.empty() && p.rules.empty()) return p;
    auto errors = classifier_policy_errors(p);
    if (!errors.empty()) throw Error(errors.front());
    return p;
}

}  // namespace toolcage::cli
