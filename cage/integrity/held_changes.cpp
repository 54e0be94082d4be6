#include "cage/integrity/held_changes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "cage/integrity/hold_rule.h"
#include "cage/integrity/tree_ops.h"
#include "common/error.h"
#include "common/sha256.h"

#include <nlohmann/json.hpp>

namespace toolcage::cage {

namespace {

using tree::Fd;
using tree::kDirFlags;
constexpr std::size_t kMaxEntries = 200000;
constexpr int kMaxDepth = 64;
constexpr std::string_view kTempPrefix = ".toolcage-hold-";


using Entry = HoldPass::Entry;

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

bool under(const std::string& rel, const std::string& dir) {
    return rel.size() > dir.size() && rel.compare(0, dir.size(), dir) == 0 && rel[dir.size()] == '/';
}

std::string kind_name(mode_t m) {
    if (S_ISREG(m)) return "file";
    if (S_ISDIR(m)) return "directory";
    if (S_ISLNK(m)) return "symlink";
    return "special file";
}

std::string octal(mode_t m) {
    char b[16];
    std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
    return b;
}

// The directories whose contents are build outputs: a package manager's installed tree, Python's
// byte code, and a directory a tool tags as its cache or output (CACHEDIR.TAG, as cargo's target/
// and pytest's, mypy's and ruff's caches carry) whose name says so. No tool reads its
// configuration from inside another tool's output; the name condition keeps a step from declaring
// any directory an output by writing a tag into it.
bool build_output(int dir, const std::string& name) {
    if (name == "node_modules" || name == "__pycache__") return true;
    if (name != "target" && !name.ends_with("cache")) return false;
    struct stat st {};
    const std::string tag = name + "/CACHEDIR.TAG";
    return ::fstatat(dir, tag.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

struct Walk {
    const std::string& workspace;
    const std::vector<ProtectedPath>& protect;
    std::map<std::string, Entry>& out;
    std::set<std::string>& repo_roots;
    bool keep = false;  // the walk before the step: held symlinks' targets kept, others not statted

    [[noreturn]] void fail(const std::string& rel, const std::string& what) const {
        throw Error("workspace " + workspace + ": " + (rel.empty() ? std::string(".") : rel) + ": " + what +
                    "; toolcage run cannot tell what a step changes there, so the step does not run");
    }

    void dir(int fd, const std::string& rel, int depth) {
        if (depth > kMaxDepth) fail(rel, "nested more than " + std::to_string(kMaxDepth) + " deep");
        int own = ::openat(fd, ".", kDirFlags);
        DIR* d = own < 0 ? nullptr : ::fdopendir(own);
        if (!d) {
            if (own >= 0) ::close(own);
            fail(rel, syscall_error("opendir(\"" + rel + "\")", errno));
        }
        std::vector<std::pair<std::string, unsigned char>> names;  // and their d_type
        while (dirent* e = ::readdir(d)) {
            if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
            names.emplace_back(e->d_name, e->d_type);
        }
        ::closedir(d);
        for (const auto& [name, type] : names) {
            const std::string r = join(rel, name);
            // .git at any depth is the after-step check's (cage/integrity/workspace_guard.h), as
            // are the protected paths.
            if (name == ".git") {
                repo_roots.insert(rel);
                continue;
            }
            if (is_protected(r, protect)) continue;
            if (out.size() >= kMaxEntries)
                fail(rel, "the workspace holds more than " + std::to_string(kMaxEntries) +
                              " entries outside build outputs; run the step in a smaller workspace");
            Entry e;
            const bool held_name = hold_reason(r).has_value();
            struct stat st {};
            // Before the step an entry outside the hold class is kept by its name and type alone
            // (half the walk's cost): after it, its ctime tells whether the step changed it.
            if (keep && !held_name && type != DT_UNKNOWN) {
                e.statted = false;
                st.st_mode = DTTOIF(type);
            } else if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT) continue;  // gone while listed (a step's leftover process): not there
                fail(r, syscall_error("fstatat(\"" + r + "\", AT_SYMLINK_NOFOLLOW)", errno));
            }
            e.mode = st.st_mode;
            e.dev = st.st_dev;
            e.ino = st.st_ino;
            e.size = st.st_size;
            e.mtime = st.st_mtim;
            e.ctime = st.st_ctim;
            const bool output = S_ISDIR(st.st_mode) && build_output(fd, name);
            e.held = !output && held_name;
            // A held symlink's target is kept at once; held files' bytes once the walk is done,
            // smallest first (below), so that a large tree cannot crowd out a small config.
            if (e.held && keep && S_ISLNK(st.st_mode)) e.kept = tree::read_link(fd, name, e.data);
            const bool descend = S_ISDIR(st.st_mode) && !output;
            out.emplace(r, std::move(e));
            if (descend) {
                Fd sub(::openat(fd, name.c_str(), kDirFlags));
                if (sub.fd < 0) fail(r, syscall_error("openat(\"" + r + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
                dir(sub.fd, r, depth + 1);
            }
        }
    }
};

bool same_identity(const Entry& a, const Entry& b) {
    return a.mode == b.mode && a.dev == b.dev && a.ino == b.ino && a.size == b.size &&
           a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec &&
           a.ctime.tv_sec == b.ctime.tv_sec && a.ctime.tv_nsec == b.ctime.tv_nsec;
}

}  // namespace

std::string path_state(int ws_fd, const std::string& rel) {
    auto [parent, name] = tree::split(rel);
    Fd p(tree::open_dir(ws_fd, parent, false));
    if (p.fd < 0) return "absent";
    struct stat st {};
    if (::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "absent";
    if (S_ISDIR(st.st_mode)) return "dir:" + octal(st.st_mode);
    if (S_ISLNK(st.st_mode)) {
        std::string t;
        if (!tree::read_link(p.fd, name, t)) return "symlink:?";
        return "symlink:" + sha256_hex(t);
    }
    if (S_ISREG(st.st_mode)) {
        std::string data;
        bool more = false;
        if (!tree::read_file(p.fd, name, data, std::size_t{1} << 30, more) || more) return "file:?";
        return "file:" + octal(st.st_mode) + ":" + sha256_hex(data);
    }
    return "special";
}

HoldPass::HoldPass(const std::string& workspace, std::vector<ProtectedPath> protect, std::string path_env)
    : workspace_(workspace), protect_(std::move(protect)), path_env_(std::move(path_env)) {
    // A file's ctime comes from the kernel's coarse clock, which may lag a tick (at most 10 ms)
    // behind: 50 ms of margin.
    ::clock_gettime(CLOCK_REALTIME, &started_);
    started_.tv_nsec -= 50000000;
    if (started_.tv_nsec < 0) {
        started_.tv_nsec += 1000000000;
        started_.tv_sec -= 1;
    }
    Fd ws(::open(workspace_.c_str(), kDirFlags));
    if (ws.fd < 0)
        throw Error(syscall_error("open(\"" + workspace_ + "\", O_DIRECTORY|O_NOFOLLOW)", errno) +
                    "; toolcage run cannot tell what a step changes there, so the step does not run");
    Walk{workspace_, protect_, before_, roots_, true}.dir(ws.fd, "", 0);
    // The held files' bytes, smallest first, within the bounds.
    std::vector<std::pair<off_t, std::map<std::string, Entry>::iterator>> files;
    for (auto it = before_.begin(); it != before_.end(); ++it)
        if (it->second.held && S_ISREG(it->second.mode)) files.emplace_back(it->second.size, it);
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [size, it] : files) {
        const auto usize = static_cast<std::size_t>(size);
        if (usize > kMaxKeptFile || kept_bytes_ + usize > kMaxKeptBytes) break;
        auto [parent, name] = tree::split(it->first);
        Fd p(tree::open_dir(ws.fd, parent, false));
        bool more = false;
        // A file the user cannot read in their own workspace is kept by identity only.
        if (p.fd < 0 || !tree::read_file(p.fd, name, it->second.data, kMaxKeptFile, more) || more) {
            it->second.data.clear();
            continue;
        }
        it->second.kept = true;
        kept_bytes_ += it->second.data.size();
    }
}

namespace {

// The hold pass after the step, one change at a time.
struct Settle {
    int ws;
    int aside;
    const std::map<std::string, Entry>& before;
    StepChanges& out;

    // The step's version of `rel` goes aside, whole (a directory with everything in it).
    std::string move_aside(const std::string& rel) {
        auto [parent, name] = tree::split(rel);
        Fd from(tree::open_dir(ws, parent, false));
        if (from.fd < 0) return syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
        Fd to(tree::open_dir(aside, parent, true, 0700));
        if (to.fd < 0) return syscall_error("mkdir(\"" + parent + "\") in the step's held changes", errno);
        return tree::move(from.fd, name, to.fd, name);
    }

    // One entry as it was before the step, by a new name renamed over it (its directories made).
    std::string put_back_one(const std::string& rel, const Entry& b) {
        auto [parent, name] = tree::split(rel);
        Fd p(tree::open_dir(ws, parent, true));
        if (p.fd < 0)
            return syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno) +
                   " (the step put something else in place of that directory)";
        if (S_ISDIR(b.mode)) {
            if (::mkdirat(p.fd, name.c_str(), 0700) != 0 && errno != EEXIST)
                return syscall_error("mkdirat(\"" + rel + "\")", errno);
            Fd d(::openat(p.fd, name.c_str(), kDirFlags));
            if (d.fd < 0) return syscall_error("openat(\"" + rel + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
            if (::fchmod(d.fd, b.mode & 07777) != 0) return syscall_error("fchmod(\"" + rel + "\")", errno);
            return {};
        }
        if (!b.kept)
            return S_ISREG(b.mode) ? "its bytes before the step were not kept (more than the 16 MiB a file, or 64 MiB "
                                     "in all, that toolcage keeps): it is left out of the workspace"
                                   : "a special file cannot be put back";
        const std::string temp = tree::temp_name(kTempPrefix);
        if (S_ISLNK(b.mode)) {
            if (::symlinkat(b.data.c_str(), p.fd, temp.c_str()) != 0)
                return syscall_error("symlinkat(\"" + rel + "\")", errno);
        } else if (std::string e = tree::write_new(p.fd, temp, b.data, b.mode); !e.empty()) {
            (void)::unlinkat(p.fd, temp.c_str(), 0);
            return e;
        }
        if (::renameat(p.fd, temp.c_str(), p.fd, name.c_str()) != 0) {
            int err = errno;
            (void)::unlinkat(p.fd, temp.c_str(), 0);
            return syscall_error("renameat(\"" + temp + "\", \"" + rel + "\")", err);
        }
        return {};
    }

    // `rel` and, for a directory, everything that was below it.
    std::string put_back(const std::string& rel, const Entry& b) {
        if (std::string e = put_back_one(rel, b); !e.empty()) return e;
        if (!S_ISDIR(b.mode)) return {};
        std::string first_error;
        for (auto it = before.upper_bound(rel); it != before.end() && under(it->first, rel); ++it) {
            std::string e = put_back_one(it->first, it->second);
            if (!e.empty() && first_error.empty()) first_error = it->first + ": " + e;
        }
        return first_error;
    }

    void hold(const std::string& rel, const std::string& change, const Entry* b, const Entry* a, const HoldReason& why) {
        HeldChange h;
        h.path = rel;
        h.change = change;
        h.kind = a ? kind_name(a->mode) : "nothing";
        h.rule = why.rule;
        h.why = why.why;
        h.after = "absent";
        // What the step left goes aside first, so that nothing of it stays in the workspace
        // even when putting the old version back fails.
        if (a && change != "mode changed") {
            h.after = path_state(ws, rel);
            if (std::string e = move_aside(rel); !e.empty()) {
                // It cannot be kept aside: it is removed all the same (fail closed).
                auto [parent, name] = tree::split(rel);
                Fd p(tree::open_dir(ws, parent, false));
                std::string r = p.fd < 0 ? "its directory is gone" : tree::remove(p.fd, name);
                h.note = "not kept aside (" + e + ")" + (r.empty() ? "; removed" : "; not removed: " + r);
            }
        } else if (a) {
            h.after = path_state(ws, rel);
        }
        if (b) {
            std::string e;
            if (change == "mode changed") {
                auto [parent, name] = tree::split(rel);
                Fd p(tree::open_dir(ws, parent, false));
                if (p.fd < 0 || ::fchmodat(p.fd, name.c_str(), b->mode & 07777, 0) != 0)
                    e = syscall_error("fchmodat(\"" + rel + "\")", errno);
            } else {
                e = put_back(rel, *b);
            }
            if (!e.empty()) {
                h.put_back = false;
                h.note += (h.note.empty() ? "" : "; ") + std::string("not put back: ") + e;
            }
        }
        h.before = path_state(ws, rel);
        out.held.push_back(std::move(h));
    }

    void landed(const std::string& rel, const char* change) {
        if (out.landed.size() < kMaxListedLanded)
            out.landed.push_back({rel, change});
        else
            ++out.landed_more;
    }
};

}  // namespace

StepChanges HoldPass::settle(const std::string& aside_dir) {
    StepChanges out;
    Fd ws(::open(workspace_.c_str(), kDirFlags));
    std::map<std::string, Entry> after;
    std::set<std::string> roots;
    try {
        if (ws.fd < 0) throw Error(syscall_error("open(\"" + workspace_ + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
        Walk{workspace_, protect_, after, roots, false}.dir(ws.fd, "", 0);
    } catch (const std::exception& e) {
        out.held.push_back({".", "not checked", "nothing", "walk", e.what(), false,
                            "the workspace could not be walked after the step: what it changed was not held", "", ""});
        return out;
    }
    if (::mkdir(aside_dir.c_str(), 0700) != 0 && errno != EEXIST) {
        out.held.push_back({".", "not checked", "nothing", "aside", syscall_error("mkdir(\"" + aside_dir + "\")", errno),
                            false, "the step's held changes have nowhere to go", "", ""});
        return out;
    }
    Fd aside(::open(aside_dir.c_str(), kDirFlags));
    Settle s{ws.fd, aside.fd, before_, out};

    // The hold class, before and after; a new Python module beside a repository's root is in it
    // when its name shadows a program or module (hold_rule.h).
    std::map<std::string, HoldReason> held;
    for (const auto& [rel, e] : before_)
        if (e.held) held.emplace(rel, *hold_reason(rel));
    for (const auto& [rel, e] : after) {
        if (e.held) {
            held.emplace(rel, *hold_reason(rel));
            continue;
        }
        if (before_.count(rel)) continue;
        auto [parent, name] = tree::split(rel);
        if (parent != "" && !roots.count(parent)) continue;
        const bool package = S_ISDIR(e.mode) && after.count(rel + "/__init__.py");
        if (!package && !S_ISREG(e.mode)) continue;
        if (auto why = shadow_reason(name, package, path_env_)) held.emplace(rel, *why);
    }
    std::vector<std::string> whole;  // changes held with everything below them
    auto below_whole = [&](const std::string& rel) {
        return std::any_of(whole.begin(), whole.end(), [&](const std::string& w) { return under(rel, w); });
    };
    for (const auto& [rel, why] : held) {
        if (below_whole(rel)) continue;
        auto bi = before_.find(rel);
        auto ai = after.find(rel);
        const Entry* b = bi == before_.end() ? nullptr : &bi->second;
        const Entry* a = ai == after.end() ? nullptr : &ai->second;
        if (!b && !a) continue;
        if (!b || !a || (b->mode & S_IFMT) != (a->mode & S_IFMT)) {
            s.hold(rel, !b ? "created" : !a ? "removed" : "replaced", b, a, why);
            whole.push_back(rel);
            continue;
        }
        if (S_ISDIR(a->mode)) {
            if ((a->mode & 07777) != (b->mode & 07777)) s.hold(rel, "mode changed", b, a, why);
            continue;
        }
        if (same_identity(*a, *b)) continue;
        // Touched, or rewritten with the same bytes: no change to hold; the same bytes with
        // other permission bits (chmod +x): only the mode is held.
        if (b->kept && S_ISREG(a->mode) && path_state(ws.fd, rel).ends_with(":" + sha256_hex(b->data))) {
            if ((a->mode & 07777) != (b->mode & 07777)) s.hold(rel, "mode changed", b, a, why);
            continue;
        }
        if (b->kept && S_ISLNK(a->mode) && path_state(ws.fd, rel) == "symlink:" + sha256_hex(b->data)) continue;
        s.hold(rel, "changed", b, a, why);
    }

    // Everything else landed: listed by identity (directories by their coming and going only).
    if (!listed_) return out;
    for (const auto& [rel, a] : after) {
        if (held.count(rel) || below_whole(rel)) continue;
        auto bi = before_.find(rel);
        if (bi == before_.end())
            s.landed(rel, "created");
        else if (!S_ISDIR(a.mode) && (bi->second.statted ? !same_identity(a, bi->second)
                                                          : (a.mode & S_IFMT) != (bi->second.mode & S_IFMT) ||
                                                                a.ctime.tv_sec > started_.tv_sec ||
                                                                (a.ctime.tv_sec == started_.tv_sec &&
                                                                 a.ctime.tv_nsec >= started_.tv_nsec)))
            s.landed(rel, "changed");
    }
    for (const auto& [rel, b] : before_)
        if (!after.count(rel) && !held.count(rel) && !below_whole(rel)) s.landed(rel, "removed");
    return out;
}

namespace {

}  // namespace

std::string HoldPass::to_bytes() const {
    using nlohmann::json;
    json entries = json::array();
    for (const auto& [rel, e] : before_) {
        const std::string parent = tree::split(rel).first;
        if (!e.held && !roots_.count(parent) && !parent.empty()) continue;
        entries.push_back(json::array({rel, e.mode, e.dev, e.ino, e.size, e.mtime.tv_sec, e.mtime.tv_nsec, e.ctime.tv_sec,
                                       e.ctime.tv_nsec, e.held, e.kept,
                                       json::binary(std::vector<std::uint8_t>(e.data.begin(), e.data.end()))}));
    }
    json protect = json::array();
    for (const auto& p : protect_) protect.push_back(json::array({p.rel, p.dir}));
    json j = {{"workspace", workspace_}, {"path_env", path_env_}, {"protect", protect},
              {"roots", roots_},         {"entries", entries}};
    std::vector<std::uint8_t> bytes = json::to_cbor(j);
    return std::string(bytes.begin(), bytes.end());
}

HoldPass HoldPass::from_bytes(const std::string& bytes, const std::string& workspace) {
    using nlohmann::json;
    HoldPass h;
    h.listed_ = false;
    try {
        json j = json::from_cbor(bytes);
        h.workspace_ = j.at("workspace").get<std::string>();
        if (h.workspace_ != workspace)
            throw Error("its snapshot is of " + h.workspace_ + ", not of the workspace " + workspace);
        h.path_env_ = j.at("path_env").get<std::string>();
        for (const auto& p : j.at("protect")) h.protect_.push_back({p.at(0).get<std::string>(), p.at(1).get<bool>()});
        for (const auto& r : j.at("roots")) {
            std::string root = r.get<std::string>();
            if (!root.empty() && !tree::relative_inside(root)) throw Error("it names \"" + root + "\", a path outside the workspace");
            h.roots_.insert(std::move(root));
        }
        for (const auto& a : j.at("entries")) {
            std::string rel = a.at(0).get<std::string>();
            if (!tree::relative_inside(rel)) throw Error("it names \"" + rel + "\", a path outside the workspace");
            Entry e;
            e.mode = a.at(1).get<mode_t>();
            e.dev = a.at(2).get<dev_t>();
            e.ino = a.at(3).get<ino_t>();
            e.size = a.at(4).get<off_t>();
            e.mtime = {a.at(5).get<time_t>(), a.at(6).get<long>()};
            e.ctime = {a.at(7).get<time_t>(), a.at(8).get<long>()};
            e.held = a.at(9).get<bool>();
            e.kept = a.at(10).get<bool>();
            const auto& bin = a.at(11).get_binary();
            e.data.assign(bin.begin(), bin.end());
            // The class is the rule's, not the file's: a name it does not hold is not held.
            if (e.held != hold_reason(rel).has_value() && e.held) throw Error("it holds \"" + rel + "\", outside the hold class");
            h.before_.emplace(std::move(rel), std::move(e));
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("the held changes' snapshot cannot be read: ") + e.what());
    }
    return h;
}

}  // namespace toolcage::cage
