// `toolcage policy which [--profile-dir DIR]`: which policy a profile gets, and why.
#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "hook/decision/soul.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

int policy_which(const std::string& profile_dir) {
    // A file where a profile directory belongs is a slip in the command line, not a profile
    // that has no directory yet.
    std::error_code ec;
    if (!profile_dir.empty() && std::filesystem::exists(profile_dir, ec) &&
        !std::filesystem::is_directory(profile_dir, ec))
        throw Error("policy which: --profile-dir " + profile_dir +
                    ": is a file, not a directory; give the agent's profile directory (~/.hermes, ~/.hermes/profiles/NAME)");
    hook::WhichReport r = hook::which_policy(profile_dir);
    std::cout << r.text;
    return r.refuses_everything || r.no_profile_dir ? 1 : 0;
}

}  // namespace toolcage::cli
