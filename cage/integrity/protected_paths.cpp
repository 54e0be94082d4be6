#include "cage/integrity/protected_paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cage/containment/landlock_uapi.h"
#include "common/error.h"

namespace toolcage::cage {

namespace ll = toolcage::landlock;

namespace {

ProtectedPath normalise(std::string_view entry) {
    std::string in(entry);
    if (in.empty()) throw Error("cage.protected_paths: an entry is empty; name a workspace file or directory");
    if (in[0] == '/')
        throw Error("cage.protected_paths: \"" + in +
                    "\" is absolute; entries are relative to the workspace (e.g. \".git/config\")");
    ProtectedPath p;
    p.dir = in.back() == '/';
    std::string out;
    std::size_t i = 0;
    while (i < in.size()) {
        std::size_t slash = in.find('/', i);
        std::string part = in.substr(i, slash == std::string::npos ? std::string::npos : slash - i);
        i = slash == std::string::npos ? in.size() : slash + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..")
            throw Error("cage.protected_paths: \"" + in +
                        "\" climbs out with \"..\"; name a path inside the workspace");
        if (!out.empty()) out += '/';
        out += part;
    }
    if (out.empty())
        throw Error("cage.protected_paths: \"" + in +
                    "\" names the workspace itself; name a file or directory in it");
    p.rel = std::move(out);
    return p;
}

// `a` is `b` or lies below it.
bool within(std::string_view a, std::string_view b) {
    return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 && a[b.size()] == '/');
}

}  // namespace

std::vector<ProtectedPath> protected_paths(const std::vector<std::string>& policy_entries) {
    std::vector<ProtectedPath> all;
    for (auto e : kBuiltinProtectedPaths) all.push_back(normalise(e));
    for (const auto& e : policy_entries) all.push_back(normalise(e));
    // A directory entry covers everything below it; "x" and "x/" are one entry (a directory).
    std::vector<ProtectedPath> out;
    for (const auto& p : all) {
        bool covered = false;
        for (auto& o : out) {
            if (o.rel == p.rel) {
                o.dir = o.dir || p.dir;
                covered = true;
            } else if (o.dir && within(p.rel, o.rel)) {
                covered = true;
            }
        }
        if (covered) continue;
        if (p.dir)
            out.erase(std::remove_if(out.begin(), out.end(),
                                     [&](const ProtectedPath& o) { return within(o.rel, p.rel); }),
                      out.end());
        out.push_back(p);
    }
    return out;
}

bool is_protected(std::string_view rel, const std::vector<ProtectedPath>& paths) {
    for (const auto& p : paths)
        if (p.dir ? within(rel, p.rel) : rel == p.rel) return true;
    return false;
}

bool landlock_protection_requested(const CagePolicy& cage) { return cage.protect == "landlock"; }

namespace {

// In-place writing: what the workspace root loses.
constexpr std::uint64_t kInPlace = ll::kFsWriteFile | ll::kFsTruncate;

struct Splitter {
    LandlockPlan& plan;
    const std::vector<ProtectedPath>& paths;
    std::uint64_t grant;  // what the policy granted the workspace root
    std::vector<std::string> notes;

    // `rel` (a directory, "" for the root) holds a protected path somewhere below.
    bool holds_protected(const std::string& rel) const {
        for (const auto& p : paths)
            if (rel.empty() || within(p.rel, rel)) return true;
        return false;
    }

    void split(const std::string& abs, const std::string& rel, int depth) {
        DIR* d = ::opendir(abs.c_str());
        if (!d) {
            notes.push_back(syscall_error("opendir(\"" + abs + "\")", errno) +
                            ": its entries keep only the workspace root's rights");
            return;
        }
        std::vector<std::string> names;
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") names.push_back(std::move(n));
        }
        ::closedir(d);
        std::sort(names.begin(), names.end());
        for (const auto& n : names) {
            std::string child_rel = rel.empty() ? n : rel + "/" + n;
            std::string child_abs = abs + "/" + n;
            if (is_protected(child_rel, paths)) continue;
            struct stat st {};
            if (::lstat(child_abs.c_str(), &st) != 0) continue;
            if (S_ISLNK(st.st_mode)) continue;  // a rule would land on the link's target
            bool dir = S_ISDIR(st.st_mode);
            if (dir && depth < 16 && holds_protected(child_rel)) {
                split(child_abs, child_rel, depth + 1);
                continue;
            }
            std::uint64_t access = dir ? grant : grant & ll::kFsFileRights;
            if (access) plan.rules.push_back({child_abs, access, dir});
        }
    }
};

}  // namespace

std::vector<std::string> keep_protected_read_only(LandlockPlan& plan, const std::string& workspace,
                                                  const std::vector<ProtectedPath>& paths) {
    std::vector<std::string> notes;
    if (!(plan.handled_fs & ll::kFsWriteFile)) return notes;
    // A write grant on a directory above the workspace reaches the protected paths whatever
    // the rules below say: Landlock only adds.
    for (const auto& r : plan.rules) {
        if (!(r.access & kInPlace) || r.path == workspace) continue;
        bool above = r.path == "/" || (workspace.size() > r.path.size() &&
                                       workspace.compare(0, r.path.size(), r.path) == 0 &&
                                       workspace[r.path.size()] == '/');
        if (above)
            notes.push_back("protected paths stay writable in Landlock through the write grant on " +
                            r.path + "; only the after-step check protects them");
    }
    auto root = std::find_if(plan.rules.begin(), plan.rules.end(), [&](const PathRule& r) {
        return r.path == workspace && r.is_dir && (r.access & kInPlace);
    });
    if (root == plan.rules.end()) return notes;
    Splitter s{plan, paths, root->access, {}};
    root->access &= ~kInPlace;
    s.split(workspace, "", 0);
    notes.insert(notes.end(), s.notes.begin(), s.notes.end());
    return notes;
}

}  // namespace toolcage::cage
