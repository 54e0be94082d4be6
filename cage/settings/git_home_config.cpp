#include "cage/settings/git_home_config.h"

namespace toolcage::cage {

void hide_unreadable_git_config(ExpandedCage& cage, const std::string& home) {
    if (!home.empty() && !cage.env_set.count("GIT_CONFIG_GLOBAL") &&
        !cage_reads(cage, home + "/.gitconfig") && !cage_reads(cage, home + "/.config/git/config"))
        cage.env_set["GIT_CONFIG_GLOBAL"] = "/dev/null";
    // /etc/gitconfig is not on the default read list (it may hold credentials' settings).
    if (!cage.env_set.count("GIT_CONFIG_SYSTEM") && !cage.env_set.count("GIT_CONFIG_NOSYSTEM") &&
        !cage_reads(cage, "/etc/gitconfig"))
        cage.env_set["GIT_CONFIG_NOSYSTEM"] = "1";
}

}  // namespace toolcage::cage
