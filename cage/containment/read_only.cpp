#include "cage/containment/read_only.h"

#include <string_view>

namespace toolcage::cage {

namespace {

bool within(const std::string& p, const std::string& dir) {
    if (dir.empty()) return false;
    if (dir == "/") return true;
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

// A program a stranger's repository (or an earlier step) can have put there.
bool writable_by_someone_else(const std::string& p, const StepPaths& paths, bool in_workspace) {
    for (std::string_view t : {"/tmp", "/var/tmp", "/dev/shm", "/run/user"})
        if (within(p, std::string(t))) return true;
    if (within(p, paths.home)) return true;
    return in_workspace && (within(p, paths.workspace) || within(p, paths.workdir));
}

}  // namespace

ExpandedCage read_only_cage(const CagePolicy& cage, const StepPaths& paths, bool in_workspace) {
    ExpandedCage x;
    for (const auto& e : cage.read) {
        if (e.find("{tmp}") != std::string::npos) continue;
        std::string p = expand_placeholders(e, paths);
        if (p.empty())
            x.notes.push_back("\"" + e + "\" left out: HOME is not set");
        else
            x.read.push_back(std::move(p));
    }
    for (const char* w : kReadOnlyWritable) x.write.emplace_back(w);
    for (const auto& e : cage.execute) {
        if (e.find('{') != std::string::npos) continue;
        std::string p = expand_placeholders(e, paths);
        if (!writable_by_someone_else(p, paths, in_workspace)) x.execute.push_back(std::move(p));
    }
    // The policy's variables, with its placeholders expanded as in the cage.
    CagePolicy env_only;
    env_only.env_set = cage.env_set;
    x.env_set = expand_cage_policy(env_only, paths).env_set;
    return x;
}

}  // namespace toolcage::cage
