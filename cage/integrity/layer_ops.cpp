#include "cage/integrity/layer_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cage/integrity/tree_ops.h"
#include "common/error.h"
#include "common/sha256.h"

using json = nlohmann::json;

namespace toolcage::cage {

namespace {

using tree::Fd;
using tree::kDirFlags;

// Where a copy across file systems is made before its rename into place: the workspace's root,
// where a landing cut short is cleaned up (step_layer.cpp), or beside the before-image.
constexpr std::string_view kLandTemp = ".toolcage-layer-";
constexpr std::string_view kAsideTemp = ".toolcage-aside-";
// A file's bytes are part of its identity up to this size; beyond, its size, mtime and inode.
constexpr std::size_t kHashedFile = 1u << 20;

bool lstat_in(int dir, const std::string& name, struct stat& st) {
    return dir >= 0 && ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int open_root(const std::string& path) {
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return -1;
    return ::open(path.c_str(), kDirFlags);
}

// Moves `name` from one directory to another: one rename on one file system; across two, a copy
// under a temporary name in the destination renamed into place, then the source removed, so the
// destination's name appears only whole.
std::string move_whole(int from, const std::string& name, int to, const std::string& to_name,
                       std::string_view temp_prefix, int temp_dir) {
    if (::renameat(from, name.c_str(), to, to_name.c_str()) == 0) return {};
    if (errno != EXDEV) return syscall_error("renameat(\"" + name + "\")", errno);
    const int tdir = temp_dir >= 0 ? temp_dir : to;
    const std::string temp = tree::temp_name(temp_prefix);
    if (std::string e = tree::copy(from, name, tdir, temp); !e.empty()) return e;
    if (::renameat(tdir, temp.c_str(), to, to_name.c_str()) != 0) {
        int err = errno;
        (void)tree::remove(tdir, temp);
        return syscall_error("renameat(\"" + temp + "\", \"" + to_name + "\")", err);
    }
    return tree::remove(from, name);
}

struct Applier {
    const OpDirs& d;
    std::vector<std::string>& problems;
    Fd before_root, held_root;

    void problem(const LayerOp& op, const std::string& what) {
        problems.push_back(op.rel + ": " + what);
    }

    void aside(const LayerOp& op, const std::string& parent, const std::string& name) {
        if (before_root.fd < 0) before_root.fd = open_root(d.before);
        Fd to(before_root.fd < 0 ? -1 : tree::open_dir(before_root.fd, parent, true, 0700));
        Fd from(tree::open_dir(d.ws, parent, false));
        struct stat st {};
        if (to.fd < 0)
            return problem(op, syscall_error("mkdir(\"" + d.before + "/" + parent + "\")", errno));
        const bool mine = lstat_in(from.fd, name, st) && st.st_dev == op.dev && st.st_ino == op.ino;
        struct stat kept {};
        if (lstat_in(to.fd, name, kept)) {
            // Moved aside already; a copy across file systems may have been cut short before its
            // source went.
            if (mine) (void)tree::remove(from.fd, name);
            return;
        }
        if (!mine) return;  // already moved, and something else put there since by the plan
        if (std::string e = move_whole(from.fd, name, to.fd, name, kAsideTemp, -1); !e.empty())
            problem(op, "not moved aside: " + e);
    }

    void place(const LayerOp& op, const std::string& parent, const std::string& name) {
        Fd to(tree::open_dir(d.ws, parent, false));
        if (to.fd < 0)
            return problem(
                op, syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno) +
                        " (not a directory in the workspace)");
        Fd from(d.upper < 0 ? -1 : tree::open_dir(d.upper, parent, false));
        struct stat st {};
        if (lstat_in(from.fd, name, st)) {
            if (std::string e = move_whole(from.fd, name, to.fd, name, kLandTemp, d.ws); !e.empty())
                return problem(op, e);
        }
        drop_overlay_xattrs(to.fd, name);
    }

    void hold(const LayerOp& op, const std::string& parent, const std::string& name) {
        Fd from(d.upper < 0 ? -1 : tree::open_dir(d.upper, parent, false));
        struct stat st {};
        if (!lstat_in(from.fd, name, st)) return;  // held already
        if (held_root.fd < 0) held_root.fd = open_root(d.held);
        Fd to(held_root.fd < 0 ? -1 : tree::open_dir(held_root.fd, parent, true, 0700));
        if (to.fd < 0)
            return problem(op, "the step's version is not kept: " +
                                   syscall_error("mkdir(\"" + d.held + "\")", errno));
        (void)tree::remove(to.fd, name);  // a copy cut short
        if (std::string e = tree::move(from.fd, name, to.fd, name); !e.empty())
            problem(op, "the step's version is not kept: " + e);
    }

    void apply(const LayerOp& op) {
        auto [parent, name] = tree::split(op.rel);
        if (op.op == "aside") return aside(op, parent, name);
        if (op.op == "place") return place(op, parent, name);
        if (op.op == "hold") return hold(op, parent, name);
        Fd p(tree::open_dir(d.ws, parent, false));
        if (p.fd < 0)
            return problem(
                op, syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
        if (op.op == "mkdir") {
            if (::mkdirat(p.fd, name.c_str(), 0700) != 0 && errno != EEXIST)
                problem(op, syscall_error("mkdirat(\"" + op.rel + "\")", errno));
        } else if (op.op == "chmod") {
            if (::fchmodat(p.fd, name.c_str(), op.mode & 07777, 0) != 0)
                problem(op, syscall_error("fchmodat(\"" + op.rel + "\")", errno));
        } else if (op.op == "rmdir") {
            if (::unlinkat(p.fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
                problem(op, syscall_error("unlinkat(\"" + op.rel + "\", AT_REMOVEDIR)", errno));
        }
    }
};

}  // namespace

json op_to_json(const LayerOp& op) {
    json j = {{"op", op.op}, {"path", op.rel}};
    if (op.op == "mkdir" || op.op == "chmod") j["mode"] = op.mode;
    if (op.op == "chmod" || op.op == "rmdir") j["old_mode"] = op.old_mode;
    if (op.op == "aside") {
        j["dev"] = static_cast<std::uint64_t>(op.dev);
        j["ino"] = static_cast<std::uint64_t>(op.ino);
    }
    return j;
}

LayerOp op_from_json(const json& j) {
    LayerOp op;
    try {
        op.op = j.at("op").get<std::string>();
        op.rel = j.at("path").get<std::string>();
        op.mode = j.value("mode", 0u);
        op.old_mode = j.value("old_mode", -1L);
        op.dev = static_cast<dev_t>(j.value("dev", std::uint64_t{0}));
        op.ino = static_cast<ino_t>(j.value("ino", std::uint64_t{0}));
    } catch (const json::exception& e) {
        throw Error(std::string("an operation of the landing is malformed (") + e.what() + ")");
    }
    static const char* const known[] = {"aside", "place", "mkdir", "chmod", "rmdir", "hold"};
    bool ok = false;
    for (const char* k : known) ok |= op.op == k;
    if (!ok) throw Error("an operation of the landing is unknown: \"" + op.op + "\"");
    if (!tree::relative_inside(op.rel))
        throw Error("an operation of the landing names \"" + op.rel + "\", outside the workspace");
    return op;
}

void apply_ops(const OpDirs& dirs, const std::vector<LayerOp>& ops,
               std::vector<std::string>& problems) {
    Applier a{dirs, problems, Fd(), Fd()};
    for (const auto& op : ops) a.apply(op);
}

json entry_identity(int ws, const std::string& rel) {
    auto [parent, name] = tree::split(rel);
    Fd p(tree::open_dir(ws, parent, false));
    struct stat st {};
    if (!lstat_in(p.fd, name, st)) return nullptr;
    const char* kind = S_ISREG(st.st_mode)   ? "file"
                       : S_ISDIR(st.st_mode) ? "directory"
                       : S_ISLNK(st.st_mode) ? "symlink"
                                             : "special";
    json j = {{"kind", kind},
              {"mode", st.st_mode & 07777},
              {"dev", static_cast<std::uint64_t>(st.st_dev)},
              {"ino", static_cast<std::uint64_t>(st.st_ino)}};
    if (S_ISDIR(st.st_mode)) return j;  // its contents are checked entry by entry
    j["size"] = static_cast<std::int64_t>(st.st_size);
    j["mtime"] = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    std::string data;
    bool more = false;
    if (S_ISLNK(st.st_mode) && tree::read_link(p.fd, name, data)) j["sha256"] = sha256_hex(data);
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= kHashedFile &&
        tree::read_file(p.fd, name, data, kHashedFile, more) && !more)
        j["sha256"] = sha256_hex(data);
    return j;
}

void drop_overlay_xattrs(int dir, const std::string& name) {
    Fd f(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    char names[4096];
    ssize_t n = ::flistxattr(f.fd, names, sizeof names);
    for (ssize_t i = 0; n > 0 && i < n;) {
        const std::string x(names + i);
        i += static_cast<ssize_t>(x.size()) + 1;
        if (x.starts_with("user.overlay.")) (void)::fremovexattr(f.fd, x.c_str());
    }
}

}  // namespace toolcage::cage
