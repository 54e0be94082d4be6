// `toolcage policy which [--profile-dir DIR]`: which policy a profile gets, and why.
#include <iostream>

#include "hook/decision/soul.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

int policy_which(const std::string& profile_dir) {
    hook::WhichReport r = hook::which_policy(profile_dir);
    std::cout << r.text;
    return r.refuses_everything || r.no_profile_dir ? 1 : 0;
}

}  // namespace toolcage::cli
