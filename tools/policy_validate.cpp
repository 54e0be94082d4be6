// `toolcage policy validate FILE|NAME`: every error, in one run.
#include <iostream>

#include "common/policy_loader.h"
#include "profiles/compiled_profiles.h"
#include "tools/policy_access.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

int policy_validate(const std::string& name_or_file) {
    std::vector<std::string> errors = policy_errors(name_or_file, compiled_profiles());
    if (errors.empty()) {
        Policy p = load_policy(name_or_file, compiled_profiles());
        errors = unknown_override_errors(p);
        if (errors.empty()) {
            std::cout << p.file << ": valid (policy \"" << p.name << "\"";
            if (p.mode == "audit") std::cout << ", AUDIT MODE: the hook will refuse nothing";
            std::cout << ")\n";
            return 0;
        }
    }
    for (const auto& e : errors) std::cerr << e << '\n';
    std::cerr << name_or_file << ": " << errors.size()
              << (errors.size() == 1 ? " error" : " errors") << '\n';
    return 1;
}

}  // namespace toolcage::cli
