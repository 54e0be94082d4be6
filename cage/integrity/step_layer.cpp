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
    std::vector<LayerOp> ops;  // the plan: nothing changes while it is made
    std::size_t entries = 0;
    bool stopped = false;

    void op(const char* what, const std::string& rel, unsigned mode = 0, long old_mode = -1,
            const struct stat* st = nullptr) {
        LayerOp o{what, rel, mode, old_mode, st ? st->st_dev : 0, st ? st->st_ino : 0};
        ops.push_back(std::move(o));
    }

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

    // Holds the step's version of `rel` (none: a removal): moved from the upper directory into
    // the step's held changes; the workspace keeps what it has. A protected path is reported as
    // tampering too (the step exits 3), as the after-step check reports it without a layer.
    void hold(const std::string& rel, const std::string& change, const struct stat* st,
              const HoldReason& why, bool report = true) {
        HeldChange h;
        h.path = rel;
        h.change = change;
        h.kind = st ? kind_name(st->st_mode) : "nothing";
        h.rule = why.rule;
        h.why = why.why;
        h.before = path_state(ws, rel);
        h.after = st ? path_state(upper, rel) : "absent";
        if (st && change != "mode changed") op("hold", rel);
        if (report && why.rule == kProtected.rule)
            out.tamper.push_back({rel, change, "held: never landed", true});
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
    // loses only the rest. Moved aside into the step's directory, for `toolcage undo`. True when
    // nothing is left at `rel`.
    bool remove(const std::string& rel) {
        auto [parent, name] = tree::split(rel);
        Fd p(tree::open_dir(ws, parent, false));
        struct stat st {};
        if (p.fd < 0 || ::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return true;  // gone already
        if (S_ISDIR(st.st_mode) && holds_protected(rel)) {
            hold(rel, "removed", nullptr, kProtected, false);
            out.tamper.push_back({rel, "removed", "held: the workspace keeps it", true});
            return false;
        }
        if (auto why = hold_why(rel, false, nullptr)) {
            hold(rel, "removed", nullptr, *why);
            return false;
        }
        if (S_ISDIR(st.st_mode)) {
            Fd d(::openat(p.fd, name.c_str(), kDirFlags));
            if (d.fd >= 0 && subtree_holds(d.fd, rel, 0)) {
                bool ok = false, all = true;
                for (const auto& n : names_in(d.fd, ok)) all = remove(join(rel, n)) && all;
                if (!all || !ok) return false;
                op("rmdir", rel, 0, st.st_mode & 07777);
                landed(rel, "removed");
                return true;
            }
        }
        op("aside", rel, 0, -1, &st);
        landed(rel, "removed");
        return true;
    }

    // The step's file or symlink at `rel` into the workspace: what is there moved aside first
    // (a directory was, by remove()).
    void place(const std::string& rel, const char* change) {
        struct stat lst {};
        if (stat_at(ws, rel, lst) && !S_ISDIR(lst.st_mode)) op("aside", rel, 0, -1, &lst);
        op("place", rel);
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
                    if (auto why = hold_why(rel, false, &st)) {
                        hold(rel, "mode changed", &st, *why);
                    } else {
                        op("chmod", rel, st.st_mode & 07777, lst.st_mode & 07777);
                        landed(rel, "changed");
                    }
                }
                walk(sub.fd, rel, true, depth + 1);
                return;
            }
            // A new directory, or one in place of what the workspace had.
            const bool replaces = in_lower;
            if (replaces && S_ISDIR(lst.st_mode) && holds_protected(rel)) {
                hold(rel, "replaced", &st, kProtected, false);
                out.tamper.push_back({rel, "replaced by another directory",
                                      "held: the workspace keeps its own", true});
                return;
            }
            if (auto why = hold_why(rel, !replaces, &st)) {
                hold(rel, replaces ? "replaced" : "created", &st, *why);
                return;
            }
            // A directory in place of the workspace's is the same directory, its entries
            // replaced; in place of anything else, a new one.
            const bool same_dir = replaces && S_ISDIR(lst.st_mode);
            if (replaces && !S_ISDIR(lst.st_mode) && !remove(rel)) return;
            if (!same_dir) op("mkdir", rel, 0700);
            if (!replaces) landed(rel, "created");
            walk(sub.fd, rel, false, depth + 1);
            op("chmod", rel, st.st_mode & 07777, same_dir ? long(lst.st_mode & 07777) : -1L);
            return;
        }
        // A file or a symlink: new, changed, or in place of something else.
        const bool created = !in_lower || !lower_visible;
        if (in_lower && S_ISDIR(lst.st_mode) && holds_protected(rel)) {
            hold(rel, "replaced", &st, kProtected, false);
            out.tamper.push_back(
                {rel, "replaced by a file", "held: the workspace keeps its own", true});
            return;
        }
        if (auto why = hold_why(rel, created, &st)) {
            const std::string change = change_of(rel, st, lower_visible);
            if (!change.empty()) hold(rel, change, &st, *why);
            return;
        }
        if (in_lower && S_ISDIR(lst.st_mode) && !remove(rel)) {
            problem(rel,
                    "the step put a file where the workspace keeps a directory with held "
                    "entries; not landed");
            return;
        }
        place(rel, created ? "created" : "changed");
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

json changes_to_json(const StepChanges& c) {
    json held = json::array(), landed = json::array();
    for (const auto& h : c.held)
        held.push_back({{"path", h.path},
                        {"change", h.change},
                        {"kind", h.kind},
                        {"rule", h.rule},
                        {"why", h.why},
                        {"note", h.note},
                        {"before", h.before},
                        {"after", h.after}});
    for (const auto& l : c.landed) landed.push_back({{"path", l.path}, {"change", l.change}});
    return {{"held", held}, {"landed", landed}, {"landed_more", c.landed_more}};
}

StepChanges changes_from_json(const json& j) {
    StepChanges c;
    for (const auto& h : j.at("held")) {
        HeldChange x;
        x.path = h.at("path").get<std::string>();
        x.change = h.at("change").get<std::string>();
        x.kind = h.at("kind").get<std::string>();
        x.rule = h.at("rule").get<std::string>();
        x.why = h.at("why").get<std::string>();
        x.note = h.at("note").get<std::string>();
        x.before = h.at("before").get<std::string>();
        x.after = h.at("after").get<std::string>();
        c.held.push_back(std::move(x));
    }
    for (const auto& l : j.at("landed"))
        c.landed.push_back({l.at("path").get<std::string>(), l.at("change").get<std::string>()});
    c.landed_more = j.at("landed_more").get<std::size_t>();
    return c;
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
    for (const std::string* p :
         std::initializer_list<const std::string*>{&layer, &d.upper, &d.work})
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
    const std::string journal_path = dirs.step_dir + "/" + std::string(kLandingJournal);
    std::vector<LayerOp> ops;
    struct stat jst {};
    const bool resume = ::lstat(journal_path.c_str(), &jst) == 0;
    if (ws.fd < 0 || (upper.fd < 0 && !resume)) {
        out.problems.push_back((ws.fd < 0 ? how.workspace : dirs.upper) + ": " +
                               syscall_error("open(O_DIRECTORY|O_NOFOLLOW)", errno) +
                               "; the step's changes are not landed");
        return out;
    }
    if (resume) {
        // A landing cut short: its plan is finished as written, whatever is left of the layer.
        try {
            json j = read_json_file(journal_path);
            out.changes = changes_from_json(j.at("changes"));
            for (const auto& t : j.at("tamper"))
                out.tamper.push_back({t.at(0).get<std::string>(), t.at(1).get<std::string>(),
                                      t.at(2).get<std::string>(), true});
            for (const auto& o : j.at("ops")) ops.push_back(op_from_json(o));
        } catch (const std::exception& e) {
            out.problems.push_back(journal_path + ": " + e.what() +
                                   "; the landing cannot be finished: look at the workspace, "
                                   "then remove " +
                                   dirs.step_dir);
            return out;
        }
    } else {
        Lander l{ws.fd, upper.fd, dirs, how, out, {}, 0, false};
        l.walk(upper.fd, "", true, 0);
        ops = std::move(l.ops);
        // Nothing lands or is held: nothing to record. (A held removal or mode change moves
        // nothing, but is recorded, and its step can be undone: its held changes dropped.)
        if (ops.empty() && out.changes.held.empty()) return out;
        // The plan on disk before the first change: killed from here on, the next toolcage
        // call finishes it (finish_layer_steps).
        json tamper = json::array();
        for (const auto& t : out.tamper) tamper.push_back({t.path, t.change, t.action});
        json jops = json::array();
        for (const auto& o : ops) jops.push_back(op_to_json(o));
        json j = {{"changes", changes_to_json(out.changes)}, {"tamper", tamper}, {"ops", jops}};
        if (std::string e =
                write_state_file(dirs.step_dir, std::string(kLandingJournal),
                                 j.dump(-1, ' ', false, json::error_handler_t::replace));
            !e.empty()) {
            out.problems.push_back("the landing's journal cannot be written (" + e +
                                   "); nothing of the step is landed");
            out.changes = {};
            out.tamper.clear();
            return out;
        }
    }
    remove_landing_temps(how.workspace);
    apply_ops({ws.fd, upper.fd, dirs.step_dir + "/held", dirs.step_dir + "/before"}, ops,
              out.problems);
    // What landed, with each entry's identity, for `toolcage undo`: it undoes only what is
    // still as the step left it.
    json landed = json::array();
    for (const auto& o : ops) {
        if (o.op == "hold") continue;
        json j = op_to_json(o);
        if (o.op == "place" || o.op == "mkdir") j["identity"] = entry_identity(ws.fd, o.rel);
        landed.push_back(std::move(j));
    }
    if (std::string e =
            write_state_file(dirs.step_dir, std::string(kLandedFile),
                             landed.dump(-1, ' ', false, json::error_handler_t::replace));
        !e.empty())
        out.problems.push_back("what landed is not recorded (" + e +
                               "); the step cannot be undone");
    else
        out.changes.undoable = true;
    return out;
}

void end_layer_step(const LayerDirs& dirs, int& lock_fd) {
    remove_layer_dir(dirs.step_dir);
    ::unlink((dirs.step_dir + "/" + std::string(kLandingJournal)).c_str());
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
            LayerResult r = land_layer(dirs, how);
            for (const auto& p : r.problems)
                if (report) std::fprintf(report, "toolcage: not landed: %s\n", p.c_str());
            StepInfo si{info.at("step").get<std::string>(), workspace, info.value("policy", ""),
                        info.value("argv", std::vector<std::string>{})};
            int fd = lock;
            lock = -1;
            if (r.changes.held.empty() && r.changes.landed.empty() && r.changes.landed_more == 0) {
                end_layer_step(dirs, fd);
                // Killed after its record was written, while its layer was being removed: the
                // step landed and is recorded (what `toolcage undo` needs is kept); only a step
                // that changed nothing goes whole.
                struct stat rec {};
                if (::lstat((step_dir + "/record.json").c_str(), &rec) != 0)
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
