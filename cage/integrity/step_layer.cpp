#include "cage/integrity/step_layer.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "cage/integrity/hold_rule.h"
#include "cage/integrity/step_journal.h"
#include "cage/integrity/tree_ops.h"
#include "common/error.h"
#include "common/sha256.h"
#include "common/step_id.h"
#include "common/user_home.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace toolcage::cage {

namespace {

using tree::Fd;
using tree::kDirFlags;
// The bounds of a changeset, as the hold pass's walk has them: beyond, what is left is not
// landed (and said so).
constexpr std::size_t kMaxEntries = 200000;
constexpr int kMaxDepth = 64;
constexpr std::string_view kLandTemp = ".toolcage-layer-";


std::string join(const std::string& dir, const std::string& name) {
    return dir.empty() ? name : dir + "/" + name;
}

bool under(const std::string& rel, const std::string& dir) {
    return rel.size() > dir.size() && rel.compare(0, dir.size(), dir) == 0 &&
           rel[dir.size()] == '/';
}

std::vector<std::string> names_in(int dir, bool& ok) {
    std::vector<std::string> out;
    ok = false;
    int own = ::openat(dir, ".", kDirFlags);
    if (own < 0) return out;
    DIR* d = ::fdopendir(own);
    if (!d) {
        ::close(own);
        return out;
    }
    errno = 0;
    while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        out.emplace_back(e->d_name);
    }
    ok = errno == 0;
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

bool stat_at(int dir, const std::string& rel, struct stat& st) {
    auto [parent, name] = tree::split(rel);
    Fd p(tree::open_dir(dir, parent, false));
    return p.fd >= 0 && ::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// overlayfs marks a directory that hides everything below it in the lower layer (rm -rf d;
// mkdir d) with this xattr ("userxattr": the user namespace's own).
bool opaque(int dir_fd) {
    char v[4] = {};
    ssize_t n = ::fgetxattr(dir_fd, "user.overlay.opaque", v, sizeof v);
    return n >= 1 && v[0] == 'y';
}

std::string kind_name(mode_t m) {
    if (S_ISREG(m)) return "file";
    if (S_ISDIR(m)) return "directory";
    if (S_ISLNK(m)) return "symlink";
    return "special file";
}

constexpr HoldReason kProtected{
    "protected", "a protected path (cage.protected_paths): git, editors and agents obey it"};

struct Lander {
    int ws;
    int upper;
    const LayerDirs& dirs;
    const LayerLanding& how;
    LayerResult& out;
    Fd held_root;
    std::size_t entries = 0;
    bool stopped = false;

    void problem(const std::string& rel, const std::string& what) {
        out.problems.push_back(rel + ": " + what);
    }

    void landed(const std::string& rel, const char* change) {
        if (out.changes.landed.size() < kMaxListedLanded)
            out.changes.landed.push_back({rel, change});
        else
            ++out.changes.landed_more;
    }

    // A .git at any depth is git's: its contents land as git wrote them (objects, index, refs),
    // but for the protected paths.
    static bool in_git_dir(const std::string& rel) {
        return rel == ".git" || rel.starts_with(".git/") ||
               rel.find("/.git/") != std::string::npos || rel.ends_with("/.git");
    }

    // The directories whose contents are build outputs (held_changes.h says which): in the
    // merged view, the step's tag or the workspace's.
    bool in_build_output(const std::string& rel) {
        std::size_t i = 0;
        while (i <= rel.size()) {
            std::size_t e = rel.find('/', i);
            if (e == std::string::npos) e = rel.size();
            const std::string prefix = rel.substr(0, e);
            const std::string name = rel.substr(i, e - i);
            if (name == "node_modules" || name == "__pycache__") return true;
            if (name == "target" || name.ends_with("cache")) {
                struct stat st {};
                const std::string tag = prefix + "/CACHEDIR.TAG";
                if ((stat_at(upper, tag, st) || stat_at(ws, tag, st)) && S_ISREG(st.st_mode))
                    return true;
            }
            i = e + 1;
        }
        return false;
    }

    // A directory holding .git: a repository's root, in the merged view.
    bool repo_root(const std::string& dir) {
        struct stat st {};
        const std::string git = join(dir, ".git");
        return stat_at(upper, git, st) || stat_at(ws, git, st);
    }

    std::optional<HoldReason> hold_why(const std::string& rel, bool created,
                                       const struct stat* st) {
        if (is_protected(rel, how.protect)) return kProtected;
        if (in_git_dir(rel) || in_build_output(rel)) return std::nullopt;
        if (auto r = hold_reason(rel)) return r;
        if (!created || !st) return std::nullopt;
        auto [parent, name] = tree::split(rel);
        if (!parent.empty() && !repo_root(parent)) return std::nullopt;
        struct stat init {};
        const bool package = S_ISDIR(st->st_mode) && stat_at(upper, rel + "/__init__.py", init);
        if (!package && !S_ISREG(st->st_mode)) return std::nullopt;
        return shadow_reason(name, package, how.path_env);
    }

    // A directory of the workspace whose removal would take a protected path with it (a .git).
    bool holds_protected(const std::string& rel) {
        if (rel == ".git" || rel.ends_with("/.git")) return true;
        for (const auto& p : how.protect)
            if (under(p.rel, rel)) {
                struct stat st {};
                if (stat_at(ws, p.rel, st)) return true;
            }
        return false;
    }

    int held_dir() {
        if (held_root.fd >= 0) return held_root.fd;
        const std::string path = dirs.step_dir + "/held";
        if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return -1;
        held_root.fd = ::open(path.c_str(), kDirFlags);
        return held_root.fd;
    }

    // Holds the step's version of `rel` (none: a removal): moved from the upper directory into
    // the step's held changes; the workspace keeps what it has.
    void hold(const std::string& rel, const std::string& change, const struct stat* st,
              const HoldReason& why) {
        HeldChange h;
        h.path = rel;
        h.change = change;
        h.kind = st ? kind_name(st->st_mode) : "nothing";
        h.rule = why.rule;
        h.why = why.why;
        h.before = path_state(ws, rel);
        h.after = st ? path_state(upper, rel) : "absent";
        if (st && change != "mode changed") {
            auto [parent, name] = tree::split(rel);
            Fd from(tree::open_dir(upper, parent, false));
            int root = held_dir();
            Fd to(root < 0 ? -1 : tree::open_dir(root, parent, true, 0700));
            std::string e = from.fd < 0 || to.fd < 0
                                ? syscall_error("openat(\"" + parent + "\")", errno)
                                : tree::move(from.fd, name, to.fd, name);
            if (!e.empty()) h.note = "the step's version is not kept (" + e + ")";
        }
        out.changes.held.push_back(std::move(h));
    }

    // Does anything at or below `rel` in the workspace fall in the hold class (or is protected)?
    bool subtree_holds(int dir_fd, const std::string& rel, int depth) {
        if (hold_why(rel, false, nullptr)) return true;
        if (depth > kMaxDepth) return true;
        bool ok = false;
        for (const auto& n : names_in(dir_fd, ok)) {
            const std::string r = join(rel, n);
            if (hold_why(r, false, nullptr)) return true;
            struct stat cs {};
            if (::fstatat(dir_fd, n.c_str(), &cs, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISDIR(cs.st_mode)) {
                Fd sub(::openat(dir_fd, n.c_str(), kDirFlags));
                if (sub.fd < 0 || subtree_holds(sub.fd, r, depth + 1)) return true;
            }
        }
        return !ok;
    }

    // The workspace's `rel` goes (the step removed it, or put something else there): held when
    // it is in the hold class or holds a protected path; a directory with held entries below it
    // loses only the rest.
    void remove(const std::string& rel) {
        auto [parent, name] = tree::split(rel);
        Fd p(tree::open_dir(ws, parent, false));
        struct stat st {};
        if (p.fd < 0 || ::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return;  // gone already
        if (S_ISDIR(st.st_mode) && holds_protected(rel)) {
            hold(rel, "removed", nullptr, kProtected);
            out.tamper.push_back({rel, "removed", "held: the workspace keeps it", true});
            return;
        }
        if (is_protected(rel, how.protect) && how.land_protected) {
            if (std::string e = tree::remove(p.fd, name); !e.empty()) problem(rel, e);
            return;
        }
        if (auto why = hold_why(rel, false, nullptr)) {
            hold(rel, "removed", nullptr, *why);
            return;
        }
        if (S_ISDIR(st.st_mode)) {
            Fd d(::openat(p.fd, name.c_str(), kDirFlags));
            if (d.fd >= 0 && subtree_holds(d.fd, rel, 0)) {
                bool ok = false;
                for (const auto& n : names_in(d.fd, ok)) remove(join(rel, n));
                if (::unlinkat(p.fd, name.c_str(), AT_REMOVEDIR) == 0) landed(rel, "removed");
                return;
            }
        }
        // Out of the way in one rename, then removed: the path is either there or gone.
        const std::string temp = tree::temp_name(kLandTemp);
        if (::renameat(p.fd, name.c_str(), ws, temp.c_str()) != 0) {
            problem(rel, syscall_error("renameat(\"" + rel + "\")", errno));
            return;
        }
        if (std::string e = tree::remove(ws, temp); !e.empty()) problem(rel, e);
        landed(rel, "removed");
    }

    // The step's file or symlink at `rel` into the workspace in one rename over what is there:
    // straight from the upper directory (same file system), else copied to a temporary name in
    // the workspace's root first (a landing cut short leaves it there, where the next one looks).
    void place(const std::string& rel, bool keep_in_upper, const char* change) {
        auto [parent, name] = tree::split(rel);
        Fd from(tree::open_dir(upper, parent, false));
        Fd to(tree::open_dir(ws, parent, false));
        if (from.fd < 0 || to.fd < 0) {
            problem(rel,
                    syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno) +
                        " (not a directory in the workspace)");
            return;
        }
        if (!keep_in_upper && ::renameat(from.fd, name.c_str(), to.fd, name.c_str()) == 0) {
            landed(rel, change);
            return;
        }
        if (!keep_in_upper && errno != EXDEV) {
            problem(rel, syscall_error("renameat(\"" + rel + "\")", errno));
            return;
        }
        const std::string temp = tree::temp_name(kLandTemp);
        std::string e = tree::copy(from.fd, name, ws, temp);
        if (e.empty() && ::renameat(ws, temp.c_str(), to.fd, name.c_str()) != 0)
            e = syscall_error("renameat(\"" + temp + "\", \"" + rel + "\")", errno);
        if (!e.empty()) {
            (void)tree::remove(ws, temp);
            problem(rel, e);
            return;
        }
        if (!keep_in_upper) (void)::unlinkat(from.fd, name.c_str(), 0);
        landed(rel, change);
    }

    // What a held path's change is: "created", "replaced", "changed", "mode changed", or ""
    // (touched, or rewritten with the same bytes).
    std::string change_of(const std::string& rel, const struct stat& st, bool lower_visible) {
        struct stat lst {};
        if (!lower_visible || !stat_at(ws, rel, lst)) return "created";
        if ((lst.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) return "replaced";
        const std::string a = path_state(upper, rel), b = path_state(ws, rel);
        if (a == b) return "";
        if (S_ISREG(st.st_mode) && a.substr(a.rfind(':')) == b.substr(b.rfind(':')))
            return "mode changed";
        return "changed";
    }

    // One entry of the upper directory. `lower_visible`: the workspace's entries at this level
    // show through (a merged directory, not an opaque or new one).
    void entry(int dir_fd, const std::string& dir_rel, const std::string& name, bool lower_visible,
               int depth) {
        const std::string rel = join(dir_rel, name);
        if (++entries > kMaxEntries) {
            if (!stopped)
                problem(rel, "the step's changes hold more than " + std::to_string(kMaxEntries) +
                                 " entries; the rest is not landed");
            stopped = true;
            return;
        }
        struct stat st {};
        if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            problem(rel, syscall_error("fstatat(\"" + rel + "\", AT_SYMLINK_NOFOLLOW)", errno));
            return;
        }
        struct stat lst {};
        const bool in_lower = stat_at(ws, rel, lst);
        if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {  // a whiteout: removed
            if (in_lower) remove(rel);
            return;
        }
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            problem(rel, "a " + kind_name(st.st_mode) + " (device, fifo or socket) is not landed");
            return;
        }
        const bool protected_path = is_protected(rel, how.protect);
        if (S_ISDIR(st.st_mode)) {
            Fd sub(::openat(dir_fd, name.c_str(), kDirFlags));
            if (sub.fd < 0) {
                problem(rel,
                        syscall_error("openat(\"" + rel + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
                return;
            }
            const bool merged =
                in_lower && lower_visible && S_ISDIR(lst.st_mode) && !opaque(sub.fd);
            if (merged) {
                if ((st.st_mode & 07777) != (lst.st_mode & 07777)) {
                    auto why = hold_why(rel, false, &st);
                    if (why && !(protected_path && how.land_protected)) {
                        hold(rel, "mode changed", &st, *why);
                    } else {
                        auto [parent, leaf] = tree::split(rel);
                        Fd p(tree::open_dir(ws, parent, false));
                        if (p.fd >= 0 && ::fchmodat(p.fd, leaf.c_str(), st.st_mode & 07777, 0) == 0)
                            landed(rel, "changed");
                        else
                            problem(rel, syscall_error("fchmodat(\"" + rel + "\")", errno));
                    }
                }
                walk(sub.fd, rel, true, depth + 1);
                return;
            }
            // A new directory, or one in place of what the workspace had.
            const bool replaces = in_lower;
            if (replaces && S_ISDIR(lst.st_mode) && holds_protected(rel)) {
                hold(rel, "replaced", &st, kProtected);
                out.tamper.push_back({rel, "replaced by another directory",
                                      "held: the workspace keeps its own", true});
                return;
            }
            auto why = hold_why(rel, !replaces, &st);
            if (why && !(protected_path && how.land_protected)) {
                hold(rel, replaces ? "replaced" : "created", &st, *why);
                return;
            }
            if (replaces && !S_ISDIR(lst.st_mode)) remove(rel);
            auto [parent, leaf] = tree::split(rel);
            Fd p(tree::open_dir(ws, parent, false));
            if (p.fd < 0 || (::mkdirat(p.fd, leaf.c_str(), 0700) != 0 && errno != EEXIST)) {
                problem(rel, syscall_error("mkdirat(\"" + rel + "\")", errno));
                return;
            }
            if (!replaces) landed(rel, "created");
            walk(sub.fd, rel, false, depth + 1);
            if (::fchmodat(p.fd, leaf.c_str(), st.st_mode & 07777, 0) != 0)
                problem(rel, syscall_error("fchmodat", errno));
            return;
        }
        // A file or a symlink: new, changed, or in place of something else.
        const bool created = !in_lower || !lower_visible;
        if (protected_path && how.land_protected) {
            if (in_lower && S_ISDIR(lst.st_mode)) remove(rel);
            place(rel, true, created ? "created" : "changed");
            return;
        }
        if (in_lower && S_ISDIR(lst.st_mode) && holds_protected(rel)) {
            hold(rel, "replaced", &st, kProtected);
            out.tamper.push_back(
                {rel, "replaced by a file", "held: the workspace keeps its own", true});
            return;
        }
        if (auto why = hold_why(rel, created, &st)) {
            const std::string change = change_of(rel, st, lower_visible);
            if (!change.empty()) hold(rel, change, &st, *why);
            return;
        }
        if (in_lower && S_ISDIR(lst.st_mode)) remove(rel);
        place(rel, false, created ? "created" : "changed");
    }

    void walk(int dir_fd, const std::string& rel, bool lower_visible, int depth) {
        if (depth > kMaxDepth) {
            problem(rel,
                    "nested more than " + std::to_string(kMaxDepth) + " deep; not landed below");
            return;
        }
        bool ok = false;
        std::vector<std::string> names = names_in(dir_fd, ok);
        if (!ok) problem(rel.empty() ? "." : rel, syscall_error("readdir()", errno ? errno : EIO));
        // An opaque directory hides what the workspace had there: what it does not hold again
        // is removed.
        if (!lower_visible) {
            Fd lower(tree::open_dir(ws, rel, false));
            bool lok = false;
            if (lower.fd >= 0)
                for (const auto& n : names_in(lower.fd, lok))
                    if (!std::binary_search(names.begin(), names.end(), n)) remove(join(rel, n));
        }
        for (const auto& n : names) {
            if (stopped) return;
            entry(dir_fd, rel, n, lower_visible, depth);
        }
    }
};

// overlayfs leaves its work directory's own subdirectory without permission bits: ours to open.
void remove_layer_dir(const std::string& step_dir) {
    const std::string layer = step_dir + "/layer";
    ::chmod((layer + "/work/work").c_str(), 0700);
    ::chmod((layer + "/work/index").c_str(), 0700);
    Fd d(::open(step_dir.c_str(), kDirFlags));
    if (d.fd >= 0) (void)tree::remove(d.fd, "layer");
}

// What a landing cut short left under its temporary names in the workspace's root.
void remove_landing_temps(const std::string& workspace) {
    Fd ws(::open(workspace.c_str(), kDirFlags));
    bool ok = false;
    if (ws.fd >= 0)
        for (const auto& n : names_in(ws.fd, ok))
            if (n.starts_with(kLandTemp)) (void)tree::remove(ws.fd, n);
}

json read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot be read (" + std::strerror(errno) + ")");
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        return json::parse(ss.str());
    } catch (const json::exception& e) {
        throw Error(path + ": not JSON (" + e.what() + ")");
    }
}

}  // namespace

std::string layer_refusal(const std::string& workspace, const std::string& root) {
    if (root.empty()) return "toolcage's state directory cannot be made";
    struct statfs sf {};
    if (::statfs(root.c_str(), &sf) != 0) return syscall_error("statfs(\"" + root + "\")", errno);
    // File systems an overlay refuses as its upper layer (no d_type, whiteouts or xattrs).
    switch (static_cast<unsigned long>(sf.f_type)) {
        case OVERLAYFS_SUPER_MAGIC:
            return root + " is on an overlay file system, which cannot be an overlay's upper layer";
        case NFS_SUPER_MAGIC:
        case 0x65735546 /* FUSE */:
        case 0xFF534D42 /* CIFS */:
            return root +
                   " is on a network or FUSE file system, which cannot be an overlay's upper layer";
        default:
            break;
    }
    for (const auto* p : {&workspace, &root})
        if (p->find_first_of(",:\\\n") != std::string::npos)
            return *p +
                   " holds a character the overlay's mount options cannot carry (',', ':' or '\\')";
    return {};
}

LayerDirs begin_layer_step(const StepInfo& info, const std::vector<ProtectedPath>& protect,
                           const std::string& path_env, int& lock_fd) {
    if (!is_step_id(info.step)) throw Error("the step has no id (no random bytes from the kernel)");
    LayerDirs d;
    d.step_dir = make_step_dir(info.workspace, info.step);
    const std::string lock = d.step_dir + "/running";
    lock_fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0)
        throw Error(syscall_error("flock(\"" + lock + "\")", errno) + "; remove " + d.step_dir);
    const std::string layer = d.step_dir + "/layer";
    d.upper = layer + "/upper";
    d.work = layer + "/work";
    struct stat ws {};
    if (::stat(info.workspace.c_str(), &ws) != 0)
        throw Error(syscall_error("stat(\"" + info.workspace + "\")", errno));
    for (const std::string* p : std::initializer_list<const std::string*>{&layer, &d.upper, &d.work})
        if (::mkdir(p->c_str(), 0700) != 0)
            throw Error(syscall_error("mkdir(\"" + *p + "\")", errno));
    // The merged view's root is the upper directory: it shows the workspace's permission bits.
    if (::chmod(d.upper.c_str(), ws.st_mode & 07777) != 0)
        throw Error(syscall_error("chmod(\"" + d.upper + "\")", errno));
    json prot = json::array();
    for (const auto& p : protect) prot.push_back(json::array({p.rel, p.dir}));
    json j = {{"step", info.step},     {"workspace", info.workspace},
              {"policy", info.policy}, {"argv", info.argv},
              {"protect", prot},       {"path_env", path_env}};
    const std::string path = d.step_dir + "/layer.json";
    const std::string temp = d.step_dir + "/." + tree::temp_name("layer-");
    {
        std::ofstream o(temp, std::ios::trunc);
        o << j.dump();
        if (!o.flush()) throw Error("cannot write " + temp);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0)
        throw Error(syscall_error("rename(\"" + temp + "\")", errno));
    return d;
}

LayerResult land_layer(const LayerDirs& dirs, const LayerLanding& how) {
    LayerResult out;
    Fd ws(::open(how.workspace.c_str(), kDirFlags));
    Fd upper(::open(dirs.upper.c_str(), kDirFlags));
    if (ws.fd < 0 || upper.fd < 0) {
        out.problems.push_back((ws.fd < 0 ? how.workspace : dirs.upper) + ": " +
                               syscall_error("open(O_DIRECTORY|O_NOFOLLOW)", errno) +
                               "; the step's changes are not landed");
        return out;
    }
    Lander l{ws.fd, upper.fd, dirs, how, out, Fd(), 0, false};
    l.walk(upper.fd, "", true, 0);
    return out;
}

void hold_protected_versions(const LayerDirs& dirs, const std::string& workspace,
                             const std::vector<TamperEvent>& undone, StepChanges& changes) {
    Fd ws(::open(workspace.c_str(), kDirFlags));
    Fd upper(::open(dirs.upper.c_str(), kDirFlags));
    if (ws.fd < 0 || upper.fd < 0) return;
    const std::string held = dirs.step_dir + "/held";
    if (::mkdir(held.c_str(), 0700) != 0 && errno != EEXIST) return;
    Fd root(::open(held.c_str(), kDirFlags));
    for (const auto& e : undone) {
        if (!e.undone || e.path.empty() || e.path.find("..") != std::string::npos) continue;
        HeldChange h;
        h.path = e.path;
        h.change = e.change;
        h.rule = kProtected.rule;
        h.why = kProtected.why;
        h.before = path_state(ws.fd, e.path);
        h.after = path_state(upper.fd, e.path);
        struct stat st {};
        h.kind = stat_at(upper.fd, e.path, st) ? kind_name(st.st_mode) : "nothing";
        if (h.after != "absent") {
            auto [parent, name] = tree::split(e.path);
            Fd from(tree::open_dir(upper.fd, parent, false));
            Fd to(root.fd < 0 ? -1 : tree::open_dir(root.fd, parent, true, 0700));
            std::string err = from.fd < 0 || to.fd < 0 ? "its directory cannot be opened"
                                                       : tree::move(from.fd, name, to.fd, name);
            if (!err.empty()) h.note = "the step's version is not kept (" + err + ")";
        }
        changes.held.push_back(std::move(h));
    }
}

void end_layer_step(const LayerDirs& dirs, int& lock_fd) {
    remove_layer_dir(dirs.step_dir);
    ::unlink((dirs.step_dir + "/layer.json").c_str());
    if (lock_fd >= 0) ::close(lock_fd);
    lock_fd = -1;
}

std::string finish_layer_steps(const std::string& workspace, std::FILE* report) {
    const std::string root = changes_root(false);
    if (root.empty()) return {};
    const std::string dir = journal_dir(workspace, root);
    std::string left;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string step_dir = it->path().string();
        struct stat st {};
        if (::lstat((step_dir + "/layer.json").c_str(), &st) != 0) continue;
        int lock = ::open((step_dir + "/running").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
            ::close(lock);  // its supervisor still runs: it lands its own step
            continue;
        }
        try {
            if (std::string p = private_dir_problem(step_dir); !p.empty()) throw Error(p);
            json info = read_json_file(step_dir + "/layer.json");
            if (info.value("workspace", "") != workspace)
                throw Error("its layer.json names another workspace");
            LayerLanding how;
            how.workspace = workspace;
            how.path_env = info.value("path_env", "");
            how.land_protected = false;  // no after-step check to judge them: held
            for (const auto& p : info.at("protect")) {
                ProtectedPath pp{p.at(0).get<std::string>(), p.at(1).get<bool>()};
                if (pp.rel.empty() || pp.rel[0] == '/' || pp.rel.find("..") != std::string::npos)
                    throw Error("its layer.json names a protected path outside the workspace");
                how.protect.push_back(std::move(pp));
            }
            LayerDirs dirs{step_dir, step_dir + "/layer/upper", step_dir + "/layer/work"};
            if (report)
                std::fprintf(
                    report,
                    "toolcage: the supervisor of step %s was killed: landing what it changed\n",
                    it->path().filename().string().c_str());
            remove_landing_temps(workspace);
            LayerResult r = land_layer(dirs, how);
            for (const auto& p : r.problems)
                if (report) std::fprintf(report, "toolcage: not landed: %s\n", p.c_str());
            StepInfo si{info.at("step").get<std::string>(), workspace, info.value("policy", ""),
                        info.value("argv", std::vector<std::string>{})};
            int fd = lock;
            lock = -1;
            if (r.changes.held.empty() && r.changes.landed.empty()) {
                end_layer_step(dirs, fd);
                (void)fs::remove_all(step_dir, ec);
                ec.clear();
                continue;
            }
            record_step_changes(step_dir, si, r.changes, report);
            end_layer_step(dirs, fd);
        } catch (const std::exception& e) {
            left += (left.empty() ? "" : "; ") + step_dir + ": " + e.what() + " (remove " +
                    step_dir + " once the workspace is checked by hand)";
        }
        if (lock >= 0) ::close(lock);
    }
    return left;
}

}  // namespace toolcage::cage
