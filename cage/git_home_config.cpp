#include "cage/git_home_config.h"

namespace toolcage::cage {

namespace {

bool under(const std::string& p, const std::string& dir) {
    if (dir == "/") return true;
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

bool readable(const ExpandedCage& cage, const std::string& path) {
    for (const auto& r : cage.read)
        if (under(path, r)) return true;
    return false;
}

}  // namespace

void hide_unreadable_git_config(ExpandedCage& cage, const std::string& home) {
    if (!home.empty() && !cage.env_set.count("GIT_CONFIG_GLOBAL") &&
        !readable(cage, home + "/.gitconfig") && !readable(cage, home + "/.config/git/config"))
        cage.env_set["GIT_CONFIG_GLOBAL"] = "/dev/null";
    // /etc/gitconfig is not on the default read list (it may hold credentials' settings).
    if (!cage.env_set.count("GIT_CONFIG_SYSTEM") && !cage.env_set.count("GIT_CONFIG_NOSYSTEM") &&
        !readable(cage, "/etc/gitconfig"))
        cage.env_set["GIT_CONFIG_NOSYSTEM"] = "1";
}

}  // namespace toolcage::cage
