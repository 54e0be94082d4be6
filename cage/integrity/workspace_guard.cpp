#include "cage/integrity/workspace_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "cage/integrity/tree_ops.h"
#include "common/decision_log.h"
#include "common/error.h"
#include "common/git_config.h"
#include "common/git_run_places.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

using Kind = GuardNode::Kind;

// Bounds that keep the snapshot cheap and a hostile tree from exhausting the supervisor.
constexpr std::size_t kMaxBytes = 16u << 20;  // beyond: files kept by identity only
constexpr std::size_t kMaxEntries = 100000;
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxSearchDirs = 4096;
constexpr int kMaxSearchDepth = 6;

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            if (fd_ >= 0) ::close(fd_);
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    int get() const { return fd_; }
    bool ok() const { return fd_ >= 0; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Kind kind_of(mode_t m) {
    if (S_ISREG(m)) return Kind::file;
    if (S_ISDIR(m)) return Kind::dir;
    if (S_ISLNK(m)) return Kind::symlink;
    return Kind::other;
}

std::string kind_name(Kind k) {
    switch (k) {
        case Kind::file:
            return "file";
        case Kind::dir:
            return "directory";
        case Kind::symlink:
            return "symlink";
        case Kind::other:
            return "special file";
        case Kind::absent:
            return "nothing";
    }
    return "?";
}

std::string join(const std::string& rel, const std::string& name) {
    return rel.empty() ? name : rel + "/" + name;
}

// The entries of a directory fd (an independent open of it, so the fd's offset is untouched),
// sorted; false with errno set when it cannot be listed.
bool list_dir(int dfd, std::vector<std::string>& names) {
    int own = ::openat(dfd, ".", kDirFlags);
    if (own < 0) return false;
    DIR* d = ::fdopendir(own);
    if (!d) {
        int err = errno;
        ::close(own);
        errno = err;
        return false;
    }
    errno = 0;
    while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        names.emplace_back(e->d_name);
    }
    int err = errno;
    ::closedir(d);
    std::sort(names.begin(), names.end());
    errno = err;
    return err == 0;
}

// Reads at most `limit` bytes; `more` tells whether the file had more. False with errno set.
bool read_up_to(int fd, std::string& out, std::size_t limit, bool& more) {
    more = false;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) return true;
        std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(n), limit - out.size());
        out.append(buf, take);
        if (take < static_cast<std::size_t>(n)) {
            more = true;
            return true;
        }
    }
}

bool read_link(int dfd, const std::string& name, std::string& out) {
    std::vector<char> buf(256);
    while (true) {
        ssize_t n = ::readlinkat(dfd, name.c_str(), buf.data(), buf.size());
        if (n < 0) return false;
        if (static_cast<std::size_t>(n) < buf.size()) {
            out.assign(buf.data(), static_cast<std::size_t>(n));
            return true;
        }
        if (buf.size() > 65536) {
            errno = ENAMETOOLONG;
            return false;
        }
        buf.resize(buf.size() * 4);
    }
}

bool write_all(int fd, const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        off += static_cast<std::size_t>(n);
    }
    return true;
}

// ---- the snapshot --------------------------------------------------------------------------

struct Taker {
    const std::string& ws;
    std::size_t bytes = 0;
    std::size_t entries = 0;

    [[noreturn]] void fail(const std::string& rel, const std::string& what) const {
        throw Error("protected path " + ws + "/" + rel + ": " + what +
                    "; toolcage run cannot check it after the step, so the step does not run");
    }

    GuardNode take(int dfd, const std::string& name, const std::string& rel, int depth) {
        GuardNode n;
        if (++entries > kMaxEntries)
            fail(rel, "the protected paths hold more than " + std::to_string(kMaxEntries) +
                          " entries; shrink them or take the directory out of cage.protected_paths");
        if (::fstatat(dfd, name.c_str(), &n.st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) return n;
            fail(rel, syscall_error("fstatat(\"" + rel + "\", AT_SYMLINK_NOFOLLOW)", errno));
        }
        n.kind = kind_of(n.st.st_mode);
        switch (n.kind) {
            case Kind::file: {
                Fd fd(::openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
                if (!fd.ok()) {
                    if (errno == EACCES || errno == EPERM) {
                        n.readable = false;  // kept by identity: a change is still seen
                        return n;
                    }
                    fail(rel, syscall_error("openat(\"" + rel + "\", O_RDONLY|O_NOFOLLOW)", errno));
                }
                if (static_cast<std::size_t>(n.st.st_size) > kMaxBytes - bytes) {
                    n.readable = false;  // too much to keep: a change is seen, not undone
                    n.too_large = true;
                    return n;
                }
                bool more = false;
                if (!read_up_to(fd.get(), n.data, kMaxBytes - bytes, more))
                    fail(rel, syscall_error("read(\"" + rel + "\")", errno));
                if (more) fail(rel, "it grew while it was read; run the step again");
                bytes += n.data.size();
                break;
            }
            case Kind::symlink:
                if (!read_link(dfd, name, n.data))
                    fail(rel, syscall_error("readlinkat(\"" + rel + "\")", errno));
                break;
            case Kind::dir: {
                if (depth >= kMaxDepth) fail(rel, "nested more than " + std::to_string(kMaxDepth) + " deep");
                Fd d(::openat(dfd, name.c_str(), kDirFlags));
                if (!d.ok()) {
                    if (errno == EACCES || errno == EPERM) {
                        n.readable = false;
                        return n;
                    }
                    fail(rel, syscall_error("openat(\"" + rel + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
                }
                std::vector<std::string> names;
                if (!list_dir(d.get(), names)) {
                    if (errno == EACCES || errno == EPERM) {
                        n.readable = false;
                        return n;
                    }
                    fail(rel, syscall_error("getdents(\"" + rel + "\")", errno));
                }
                for (const auto& c : names) n.children.emplace_back(c, take(d.get(), c, join(rel, c), depth + 1));
                break;
            }
            case Kind::other:
            case Kind::absent:
                break;
        }
        return n;
    }
};

// Opens the directory `rel` names below `ws_fd`, one component at a time, never through a
// symlink. `create`: missing components are made (0755), and a symlink or file planted where a
// directory was is removed first (its workspace-relative name is added to `replaced`).
// Returns -1 with errno set.
int open_beneath(int ws_fd, const std::string& rel, bool create, std::vector<std::string>* replaced = nullptr) {
    if (rel.empty()) return ::openat(ws_fd, ".", kDirFlags);
    Fd cur;  // not open yet: the first component is looked up in ws_fd itself
    std::size_t i = 0;
    while (i < rel.size()) {
        std::size_t slash = rel.find('/', i);
        std::string part = rel.substr(i, slash == std::string::npos ? std::string::npos : slash - i);
        i = slash == std::string::npos ? rel.size() : slash + 1;
        int at = cur.ok() ? cur.get() : ws_fd;
        int next = ::openat(at, part.c_str(), kDirFlags);
        if (next < 0 && (errno == ELOOP || errno == ENOTDIR) && create) {
            struct stat st {};
            if (::fstatat(at, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
                ::unlinkat(at, part.c_str(), 0) == 0) {
                if (replaced) replaced->push_back(rel.substr(0, slash == std::string::npos ? rel.size() : slash));
                errno = ENOENT;
            } else {
                errno = ELOOP;
            }
        }
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(at, part.c_str(), 0755) != 0 && errno != EEXIST) return -1;
            next = ::openat(at, part.c_str(), kDirFlags);
        }
        if (next < 0) return -1;
        cur = Fd(next);
    }
    return cur.release();
}

// An unpredictable name for a file being put back: a step that knew the name could have made
// it first (a directory, a symlink) so that the restore fails.
std::string random_temp_name() {
    unsigned char b[12];
    std::size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            // No entropy call (cannot happen from 3.17 on): the clock and a counter, still retried.
            static unsigned counter = 0;
            unsigned long v = static_cast<unsigned long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                              (static_cast<unsigned long>(++counter) << 40);
            std::memcpy(b, &v, sizeof v < sizeof b ? sizeof v : sizeof b);
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string name = ".toolcage-restore-";
    for (unsigned char c : b) {
        name += hex[c >> 4];
        name += hex[c & 15];
    }
    return name;
}

// Which files of a git directory git reads its configuration (or finds another git directory)
// through, and which git directories lie below the workspace's .git: the submodules' under
// .git/modules (nested: .git/modules/a/modules/b; a name may hold '/') and the linked
// worktrees' under .git/worktrees. Symlinks met on the way are listed too (git would follow
// them to a config of the step's choosing). Workspace-relative, sorted.
constexpr std::size_t kMaxAdminDirs = 4096;
constexpr std::string_view kGitDirFiles[] = {"config", "config.worktree", "commondir", "hooks/", "info/"};
constexpr std::string_view kWorktreeFiles[] = {"config.worktree", "commondir", "gitdir"};

// Directories a nested repository is not looked for in: what package managers and build tools
// fill (thousands of entries nobody commits in), so that the walk stays cheap.
constexpr std::string_view kSkippedDirs[] = {"node_modules", "target", ".venv", "venv", "__pycache__", ".tox"};
constexpr std::size_t kMaxNestedWalk = 4096;  // directories looked into
constexpr int kMaxNestedDepth = 6;

// Every .git below the workspace but its own (a repository cloned inside the clone, not a
// submodule; a worktree's or submodule's checkout, whose .git is a file): breadth first, never
// through a symlink, bounded. Workspace-relative paths of the .git entries, and whether each is
// a directory.
std::vector<std::pair<std::string, bool>> nested_git_entries(int ws_fd) {
    std::vector<std::pair<std::string, bool>> out;
    std::deque<std::pair<std::string, int>> queue{{"", 0}};
    std::size_t visited = 0;
    while (!queue.empty() && visited++ < kMaxNestedWalk) {
        auto [rel, depth] = queue.front();
        queue.pop_front();
        // One call per directory, never through a symlink nor out of the workspace.
        open_how how{};
        how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        int fd = static_cast<int>(::syscall(SYS_openat2, ws_fd, rel.empty() ? "." : rel.c_str(), &how, sizeof how));
        if (fd < 0 && errno == ENOSYS) fd = rel.empty() ? ::fcntl(ws_fd, F_DUPFD_CLOEXEC, 0) : open_beneath(ws_fd, rel, false);
        if (fd < 0) continue;
        DIR* d = ::fdopendir(fd);
        if (!d) {
            ::close(fd);
            continue;
        }
        while (const dirent* e = ::readdir(d)) {
            std::string_view n = e->d_name;
            if (n == "." || n == "..") continue;
            unsigned char type = e->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st {};
                if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
            }
            if (n == ".git") {
                if (!rel.empty() && (type == DT_DIR || type == DT_REG)) out.emplace_back(rel + "/.git", type == DT_DIR);
                continue;
            }
            if (type != DT_DIR || depth >= kMaxNestedDepth) continue;
            if (std::find(std::begin(kSkippedDirs), std::end(kSkippedDirs), n) != std::end(kSkippedDirs)) continue;
            queue.emplace_back(join(rel, std::string(n)), depth + 1);
        }
        ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// `abs` (lexically normal, or its real location) inside `workspace`: workspace-relative; else "".
std::string inside(const std::string& workspace, const std::string& abs) {
    for (const std::string& p : {abs, fs::weakly_canonical(abs).string()}) {
        if (p.size() > workspace.size() && p.compare(0, workspace.size(), workspace) == 0 && p[workspace.size()] == '/')
            return p.substr(workspace.size() + 1);
    }
    return {};
}

// Where the workspace's git directories (its own, its submodules', its nested repositories')
// make git run code beside their config and hooks/: the directory core.hooksPath names and the
// files their config includes, when they lie in the workspace. Read from the configs as they are
// before the step: after it, those configs are themselves put back when they changed.
std::vector<ProtectedPath> git_run_paths(const std::string& workspace, const std::vector<std::string>& admin_dirs) {
    std::vector<ProtectedPath> out;
    for (const auto& admin : admin_dirs) {
        const std::string dir = workspace + "/" + (admin.empty() ? std::string(".git") : admin);
        // Its working tree: the workspace for its own .git, the directory above a nested .git; a
        // submodule's lies where its core.worktree says, so only absolute hook paths count there.
        std::string worktree = admin.empty()             ? workspace
                               : admin.ends_with("/.git") ? workspace + "/" + admin.substr(0, admin.size() - 5)
                                                          : std::string();
        gitconfig::RunPlaces places = gitconfig::run_places({dir + "/config", dir + "/config.worktree"}, worktree, "");
        for (const auto& h : places.hook_dirs)
            if (std::string rel = inside(workspace, h); !rel.empty()) out.push_back({rel, true});
        for (const auto& i : places.includes)
            if (std::string rel = inside(workspace, i); !rel.empty()) out.push_back({rel, false});
    }
    // One entry for a tree: husky's .husky holds its .husky/_.
    std::erase_if(out, [&](const ProtectedPath& p) {
        return std::any_of(out.begin(), out.end(), [&](const ProtectedPath& d) {
            return d.dir && d.rel != p.rel && p.rel.starts_with(d.rel + "/");
        });
    });
    return out;
}

std::vector<ProtectedPath> git_admin_paths(int ws_fd) {
    std::vector<ProtectedPath> out;
    auto add = [&](const std::string& rel) {
        bool dir = rel.ends_with("/");
        out.push_back({dir ? rel.substr(0, rel.size() - 1) : rel, dir});
    };
    // Nested repositories: their git directory's config, hooks and links, or their .git file.
    for (const auto& [rel, is_dir] : nested_git_entries(ws_fd)) {
        if (!is_dir) {
            add(rel);
            continue;
        }
        for (auto f : kGitDirFiles) add(rel + "/" + std::string(f));
    }
    std::deque<std::string> queue{".git/modules"};
    std::size_t visited = 0;
    while (!queue.empty() && visited++ < kMaxAdminDirs) {
        std::string rel = queue.front();
        queue.pop_front();
        Fd d(open_beneath(ws_fd, rel, false));
        if (!d.ok()) continue;
        struct stat head {};
        bool git_dir = ::fstatat(d.get(), "HEAD", &head, AT_SYMLINK_NOFOLLOW) == 0 && rel != ".git/modules";
        if (git_dir) {
            for (auto f : kGitDirFiles) add(rel + "/" + std::string(f));
            queue.push_back(rel + "/modules");
            continue;
        }
        std::vector<std::string> names;
        if (!list_dir(d.get(), names)) continue;
        for (const auto& n : names) {
            struct stat st {};
            if (::fstatat(d.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (S_ISDIR(st.st_mode)) queue.push_back(rel + "/" + n);
            else if (S_ISLNK(st.st_mode)) add(rel + "/" + n);
        }
    }
    Fd wt(open_beneath(ws_fd, ".git/worktrees", false));
    std::vector<std::string> names;
    if (wt.ok() && list_dir(wt.get(), names)) {
        for (const auto& n : names) {
            struct stat st {};
            if (::fstatat(wt.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (S_ISLNK(st.st_mode)) add(".git/worktrees/" + n);
            if (!S_ISDIR(st.st_mode)) continue;
            for (auto f : kWorktreeFiles) add(".git/worktrees/" + n + "/" + std::string(f));
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.rel < b.rel; });
    return out;
}

// The git directory a workspace-relative path lies in ("" for the workspace's own .git) and how
// many components deep that directory is: ".git/modules/a/b/config" -> ".git/modules/a/b", 4.
// Known only for the paths git_admin_paths lists; other paths answer {"", 0}.
std::pair<std::string, int> admin_dir_of(const std::string& rel) {
    // A nested repository's: "sub/.git/hooks/x" -> "sub/.git".
    if (!rel.starts_with(".git/")) {
        std::size_t at = rel.find("/.git/");
        if (at == std::string::npos) return {"", 0};
        std::string dir = rel.substr(0, at + 5);
        return {dir, static_cast<int>(std::count(dir.begin(), dir.end(), '/')) + 1};
    }
    if (!rel.starts_with(".git/modules/") && !rel.starts_with(".git/worktrees/")) return {"", 0};
    for (auto f : kGitDirFiles) {
        std::string tail = "/" + std::string(f.ends_with("/") ? f.substr(0, f.size() - 1) : f);
        std::size_t at = rel.rfind(tail);
        if (at == std::string::npos) continue;
        if (at + tail.size() != rel.size() && rel[at + tail.size()] != '/') continue;
        std::string dir = rel.substr(0, at);
        return {dir, static_cast<int>(std::count(dir.begin(), dir.end(), '/')) + 1};
    }
    std::size_t at = rel.rfind('/');
    std::string dir = rel.substr(0, at);
    return {dir, static_cast<int>(std::count(dir.begin(), dir.end(), '/')) + 1};
}

// A protected path's parent directory and name: ".git/config" -> ".git", "config".
std::pair<std::string, std::string> split_rel(const std::string& rel) {
    std::size_t slash = rel.rfind('/');
    if (slash == std::string::npos) return {"", rel};
    return {rel.substr(0, slash), rel.substr(slash + 1)};
}

}  // namespace

namespace {

// ---- putting things back ---------------------------------------------------------------------

struct Restorer {
    std::vector<TamperEvent>& events;
    bool git_was_absent = false;  // the step made .git itself
    std::string workspace;        // absolute

    // Git directories below .git (submodules', linked worktrees') the step made itself.
    std::vector<std::string> fresh_admin_dirs;

    bool fresh(const std::string& admin_dir) const {
        if (admin_dir.empty()) return git_was_absent;
        return git_was_absent ||
               std::find(fresh_admin_dirs.begin(), fresh_admin_dirs.end(), admin_dir) != fresh_admin_dirs.end();
    }

    static bool is_config(const std::string& rel) {
        return rel == ".git/config" || rel == ".git/config.worktree" || rel.ends_with("/.git/config") ||
               rel.ends_with("/.git/config.worktree") ||
               (rel.starts_with(".git/modules/") && (rel.ends_with("/config") || rel.ends_with("/config.worktree"))) ||
               (rel.starts_with(".git/worktrees/") && rel.ends_with("/config.worktree"));
    }

    // A change git never runs, which stays: a config that keeps only settings on the positive
    // list of inert ones, or had them before (cf. gitconfig::first_non_inert_key), a hook
    // sample, in a git directory the step made itself info/ (but attributes, which chooses
    // drivers), a linked worktree's commondir and gitdir as git writes them. `before`: the file
    // as it was (null when it did not exist).
    bool inert_file(int pfd, const std::string& name, const std::string& rel, const struct stat& st,
                    const GuardNode* before = nullptr) {
        if (!S_ISREG(st.st_mode) || st.st_nlink != 1) return false;
        if (rel.ends_with("/.git")) return inert_gitfile(pfd, name, rel);
        auto [admin, depth] = admin_dir_of(rel);
        if (rel.ends_with(".sample") && rel.find("/hooks/") != std::string::npos) return true;
        if (fresh(admin) && rel.starts_with((admin.empty() ? std::string(".git") : admin) + "/info/") &&
            !rel.ends_with("/info/attributes"))
            return true;
        bool config = is_config(rel);
        bool worktree_link = rel.starts_with(".git/worktrees/") && (rel.ends_with("/commondir") || rel.ends_with("/gitdir"));
        if (!config && !worktree_link) return false;
        Fd fd(::openat(pfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
        if (!fd.ok()) return false;
        std::string text;
        bool more = false;
        if (!read_up_to(fd.get(), text, 1 << 20, more) || more) return false;
        if (worktree_link) {
            // What `git worktree add` writes, in a worktree's directory the step made: the
            // common directory two levels up, and where the worktree's .git file is.
            if (!fresh(admin)) return false;
            if (rel.ends_with("/commondir")) return text == "../..\n";
            return text.starts_with("/") && text.ends_with("/.git\n") && text.find("/../") == std::string::npos &&
                   std::count(text.begin(), text.end(), '\n') == 1;
        }
        std::string_view old_text = before && before->kind == Kind::file && before->readable ? std::string_view(before->data)
                                                                                              : std::string_view();
        gitconfig::InertContext ctx;
        ctx.fresh_git_dir = fresh(admin);
        ctx.module_depth = rel.starts_with(".git/modules/") ? depth : 0;
        return gitconfig::first_non_inert_key(text, old_text, ctx).empty();
    }

    // A checkout's .git file as `git submodule update` and `git worktree add` write it: into the
    // workspace's own .git/modules or .git/worktrees, whose config and hooks are kept already.
    bool inert_gitfile(int pfd, const std::string& name, const std::string& rel) {
        Fd fd(::openat(pfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
        std::string text;
        bool more = false;
        if (!fd.ok() || !read_up_to(fd.get(), text, 4096, more) || more) return false;
        if (!text.starts_with("gitdir: ") || !text.ends_with("\n") || std::count(text.begin(), text.end(), '\n') != 1)
            return false;
        std::string target = text.substr(8, text.size() - 9);
        std::string base = workspace + "/" + rel.substr(0, rel.size() - 5);
        std::string abs = fs::path(target.starts_with("/") ? target : base + "/" + target).lexically_normal().string();
        for (const char* d : {"/.git/modules/", "/.git/worktrees/"})
            if (abs.starts_with(workspace + d) && abs.find("/../") == std::string::npos) return true;
        return false;
    }

    bool inert_tree(int pfd, const std::string& name, const std::string& rel, int depth) {
        struct stat st {};
        if (::fstatat(pfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
        if (!S_ISDIR(st.st_mode)) return inert_file(pfd, name, rel, st);
        if (depth > 8) return false;
        Fd d(::openat(pfd, name.c_str(), kDirFlags));
        std::vector<std::string> names;
        if (!d.ok() || !list_dir(d.get(), names)) return false;
        return std::all_of(names.begin(), names.end(),
                           [&](const std::string& n) { return inert_tree(d.get(), n, join(rel, n), depth + 1); });
    }

    void event(const std::string& path, const std::string& change, const std::string& action, bool undone) {
        events.push_back({path, change, action, undone});
    }

    // Opens a directory for removal: one the step made unreadable is ours to remove (same owner).
    static int open_for_removal(int pfd, const char* name) {
        int fd = ::openat(pfd, name, kDirFlags);
        if (fd < 0 && (errno == EACCES || errno == EPERM)) {
            ::fchmodat(pfd, name, 0700, AT_SYMLINK_NOFOLLOW);
            fd = ::openat(pfd, name, kDirFlags);
        }
        if (fd >= 0) ::fchmod(fd, 0700);
        return fd;
    }

    // Removes `name` in `pfd` and everything below it, never following a symlink, at any depth
    // and without recursion: one directory is open at a time, and going back up is
    // openat(".."), checked against the identity recorded on the way down. It goes on past an
    // entry it cannot remove. Returns "" or what is left and the first failing call.
    std::string remove_tree(int pfd, const std::string& name, int = 0) {
        struct stat st {};
        if (::fstatat(pfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? "" : syscall_error("fstatat(\"" + name + "\")", errno);
        if (!S_ISDIR(st.st_mode)) {
            if (::unlinkat(pfd, name.c_str(), 0) != 0) return syscall_error("unlinkat(\"" + name + "\")", errno);
            return "";
        }
        struct Level {
            dev_t dev;
            ino_t ino;
            std::string name;                // its name in the level above
            std::vector<std::string> names;  // its entries, as listed when it was entered
            std::size_t next = 0;
            bool failed = false;             // something below could not be removed
        };
        std::string first_error;
        std::size_t left = 0;
        auto fail = [&](std::string what) {
            ++left;
            if (first_error.empty()) first_error = std::move(what);
        };
        std::vector<Level> path;
        Fd cur(open_for_removal(pfd, name.c_str()));
        if (!cur.ok()) return syscall_error("openat(\"" + name + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
        auto enter = [&](const std::string& n, const struct stat& s) {
            Level l{s.st_dev, s.st_ino, n, {}, 0, false};
            if (!list_dir(cur.get(), l.names)) {
                fail(syscall_error("getdents(\"" + n + "\")", errno));
                l.failed = true;
                l.names.clear();
            }
            path.push_back(std::move(l));
        };
        enter(name, st);
        while (!path.empty()) {
            Level& l = path.back();
            if (l.next < l.names.size()) {
                const std::string child = l.names[l.next++];
                struct stat cs {};
                if (::fstatat(cur.get(), child.c_str(), &cs, AT_SYMLINK_NOFOLLOW) != 0) {
                    if (errno != ENOENT) {
                        fail(syscall_error("fstatat(\"" + child + "\")", errno));
                        l.failed = true;
                    }
                    continue;
                }
                if (!S_ISDIR(cs.st_mode)) {
                    if (::unlinkat(cur.get(), child.c_str(), 0) != 0) {
                        fail(syscall_error("unlinkat(\"" + child + "\")", errno));
                        l.failed = true;
                    }
                    continue;
                }
                int down = open_for_removal(cur.get(), child.c_str());
                if (down < 0) {
                    fail(syscall_error("openat(\"" + child + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
                    l.failed = true;
                    continue;
                }
                cur = Fd(down);
                enter(child, cs);
                continue;
            }
            // Every entry handled: back up, and remove this directory unless something is left.
            Level done = std::move(path.back());
            path.pop_back();
            if (path.empty()) {
                cur = Fd();
                if (!done.failed && ::unlinkat(pfd, name.c_str(), AT_REMOVEDIR) != 0)
                    fail(syscall_error("unlinkat(\"" + name + "\", AT_REMOVEDIR)", errno));
                break;
            }
            Fd up(::openat(cur.get(), "..", kDirFlags));
            struct stat us {};
            if (!up.ok() || ::fstat(up.get(), &us) != 0 || us.st_dev != path.back().dev || us.st_ino != path.back().ino) {
                fail("the tree moved while it was removed (openat(\"..\") is not the directory entered)");
                break;
            }
            cur = std::move(up);
            if (done.failed) {
                path.back().failed = true;
            } else if (::unlinkat(cur.get(), done.name.c_str(), AT_REMOVEDIR) != 0) {
                fail(syscall_error("unlinkat(\"" + done.name + "\", AT_REMOVEDIR)", errno));
                path.back().failed = true;
            }
        }
        if (left == 0) return "";
        return std::to_string(left) + (left == 1 ? " entry" : " entries") + " left, first: " + first_error;
    }

    // A new entry named unpredictably in `pfd`, made by `make(name)` (which fails with EEXIST
    // when the name is taken: then another is tried). Returns the name, or "" with errno set.
    template <class Make>
    static std::string make_temp(Make make) {
        for (int attempt = 0; attempt < 32; ++attempt) {
            std::string tmp = random_temp_name();
            if (make(tmp)) return tmp;
            if (errno != EEXIST) return "";
        }
        return "";
    }

    static void set_owner_and_mode(int fd, const GuardNode& want) {
        if (::geteuid() == 0) (void)::fchown(fd, want.st.st_uid, want.st.st_gid);
        ::fchmod(fd, want.st.st_mode & 07777);
    }

    // Makes `name` in `pfd` what `want` says, replacing whatever is there. Returns "" or why not.
    std::string put(int pfd, const std::string& name, const GuardNode& want, int depth) {
        switch (want.kind) {
            case Kind::file: {
                // A new file renamed over the name: never written through a symlink or into a
                // file that is hard-linked elsewhere.
                Fd fd;
                std::string tmp = make_temp([&](const std::string& t) {
                    fd = Fd(::openat(pfd, t.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
                    return fd.ok();
                });
                if (!fd.ok()) return syscall_error("openat(\".toolcage-restore-*\", O_CREAT|O_EXCL)", errno);
                bool ok = write_all(fd.get(), want.data);
                int err = errno;
                if (ok) {
                    set_owner_and_mode(fd.get(), want);
                    struct timespec times[2] = {want.st.st_atim, want.st.st_mtim};
                    ::futimens(fd.get(), times);
                }
                fd = Fd();
                if (!ok) {
                    ::unlinkat(pfd, tmp.c_str(), 0);
                    return syscall_error("write(\"" + tmp + "\")", err);
                }
                struct stat cur {};
                if (::fstatat(pfd, name.c_str(), &cur, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(cur.st_mode)) {
                    std::string e = remove_tree(pfd, name, 0);
                    if (!e.empty()) {
                        ::unlinkat(pfd, tmp.c_str(), 0);
                        return e;
                    }
                }
                if (::renameat(pfd, tmp.c_str(), pfd, name.c_str()) != 0) {
                    err = errno;
                    ::unlinkat(pfd, tmp.c_str(), 0);
                    return syscall_error("renameat(\"" + tmp + "\", \"" + name + "\")", err);
                }
                return "";
            }
            case Kind::symlink: {
                std::string tmp = make_temp(
                    [&](const std::string& t) { return ::symlinkat(want.data.c_str(), pfd, t.c_str()) == 0; });
                if (tmp.empty()) return syscall_error("symlinkat(\".toolcage-restore-*\")", errno);
                if (::geteuid() == 0)
                    (void)::fchownat(pfd, tmp.c_str(), want.st.st_uid, want.st.st_gid, AT_SYMLINK_NOFOLLOW);
                struct stat cur {};
                if (::fstatat(pfd, name.c_str(), &cur, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(cur.st_mode)) {
                    std::string e = remove_tree(pfd, name, 0);
                    if (!e.empty()) {
                        ::unlinkat(pfd, tmp.c_str(), 0);
                        return e;
                    }
                }
                if (::renameat(pfd, tmp.c_str(), pfd, name.c_str()) != 0) {
                    int err = errno;
                    ::unlinkat(pfd, tmp.c_str(), 0);
                    return syscall_error("renameat(\"" + tmp + "\", \"" + name + "\")", err);
                }
                return "";
            }
            case Kind::dir: {
                std::string e = remove_tree(pfd, name, 0);
                if (!e.empty()) return e;
                if (::mkdirat(pfd, name.c_str(), 0700) != 0) return syscall_error("mkdirat(\"" + name + "\")", errno);
                Fd d(::openat(pfd, name.c_str(), kDirFlags));
                if (!d.ok()) return syscall_error("openat(\"" + name + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
                for (const auto& [c, node] : want.children) {
                    if (node.kind == Kind::absent) continue;
                    std::string ce = put(d.get(), c, node, depth + 1);
                    if (!ce.empty()) return ce;
                }
                set_owner_and_mode(d.get(), want);
                return "";
            }
            case Kind::other:
                return "a " + kind_name(want.kind) + " cannot be recreated";
            case Kind::absent:
                return remove_tree(pfd, name, 0);
        }
        return "";
    }

    bool same_file(int pfd, const std::string& name, const struct stat& cur, const GuardNode& want) {
        if (cur.st_mode != want.st.st_mode) return false;
        // Hard-linked since: a name outside the protected paths could write it later.
        if (cur.st_nlink > 1 && (cur.st_ino != want.st.st_ino || cur.st_nlink != want.st.st_nlink)) return false;
        if (static_cast<std::size_t>(cur.st_size) != want.data.size()) return false;
        Fd fd(::openat(pfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
        if (!fd.ok()) return false;
        std::string now;
        bool more = false;
        if (!read_up_to(fd.get(), now, want.data.size() + 1, more)) return false;
        return !more && now == want.data;
    }

    // Compares `name` in `pfd` (workspace-relative `rel`) with `want` and puts it back.
    void reconcile(int pfd, const std::string& name, const std::string& rel, const GuardNode& want, int depth) {
        struct stat cur {};
        bool exists = ::fstatat(pfd, name.c_str(), &cur, AT_SYMLINK_NOFOLLOW) == 0;
        if (!exists && errno != ENOENT) {
            event(rel, "cannot be examined", "not restored: " + syscall_error("fstatat", errno), false);
            return;
        }
        if (want.kind == Kind::absent) {
            if (!exists || inert_tree(pfd, name, rel, 0)) return;
            std::string e = remove_tree(pfd, name, 0);
            event(rel, "created", e.empty() ? "removed" : "not removed: " + e, e.empty());
            return;
        }
        if (!exists) {
            std::string e = put(pfd, name, want, depth);
            event(rel, "removed", e.empty() ? "restored" : "not restored: " + e, e.empty());
            return;
        }
        Kind now = kind_of(cur.st_mode);
        if (!want.readable) {
            bool same = now == want.kind && cur.st_dev == want.st.st_dev && cur.st_ino == want.st.st_ino &&
                        cur.st_mode == want.st.st_mode && cur.st_size == want.st.st_size &&
                        cur.st_ctim.tv_sec == want.st.st_ctim.tv_sec && cur.st_ctim.tv_nsec == want.st.st_ctim.tv_nsec;
            if (!same)
                event(rel, "changed",
                      want.too_large ? "not restored: the protected paths hold more than toolcage run keeps (16 MiB)"
                                     : "not restored: toolcage run could not read it before the step",
                      false);
            return;
        }
        if (now != want.kind) {
            std::string e = put(pfd, name, want, depth);
            event(rel, "replaced by a " + kind_name(now), e.empty() ? "restored" : "not restored: " + e, e.empty());
            return;
        }
        switch (now) {
            case Kind::file:
                if (!same_file(pfd, name, cur, want) && !inert_file(pfd, name, rel, cur, &want)) {
                    std::string e = put(pfd, name, want, depth);
                    event(rel, "changed", e.empty() ? "restored" : "not restored: " + e, e.empty());
                }
                return;
            case Kind::symlink: {
                std::string target;
                if (!read_link(pfd, name, target) || target != want.data) {
                    std::string e = put(pfd, name, want, depth);
                    event(rel, "changed", e.empty() ? "restored" : "not restored: " + e, e.empty());
                }
                return;
            }
            case Kind::dir: {
                Fd d(::openat(pfd, name.c_str(), kDirFlags));
                if (!d.ok() && (errno == EACCES || errno == EPERM)) {
                    ::fchmodat(pfd, name.c_str(), (want.st.st_mode & 07777) | 0700, AT_SYMLINK_NOFOLLOW);
                    d = Fd(::openat(pfd, name.c_str(), kDirFlags));
                }
                if (!d.ok()) {
                    event(rel, "cannot be opened", "not restored: " + syscall_error("openat", errno), false);
                    return;
                }
                bool mode_changed = (cur.st_mode & 07777) != (want.st.st_mode & 07777);
                if ((cur.st_mode & 0700) != 0700) ::fchmod(d.get(), (cur.st_mode & 07777) | 0700);
                std::vector<std::string> names;
                if (!list_dir(d.get(), names)) {
                    event(rel, "cannot be listed", "not restored: " + syscall_error("getdents", errno), false);
                    return;
                }
                for (const auto& n : names) {
                    bool known = std::any_of(want.children.begin(), want.children.end(),
                                             [&](const auto& c) { return c.first == n; });
                    if (known || inert_tree(d.get(), n, join(rel, n), 0)) continue;
                    std::string e = remove_tree(d.get(), n, 0);
                    event(join(rel, n), "created", e.empty() ? "removed" : "not removed: " + e, e.empty());
                }
                for (const auto& [c, node] : want.children) reconcile(d.get(), c, join(rel, c), node, depth + 1);
                ::fchmod(d.get(), want.st.st_mode & 07777);
                if (mode_changed) event(rel, "mode changed", "restored", true);
                return;
            }
            case Kind::other:
                if (cur.st_mode != want.st.st_mode || cur.st_rdev != want.st.st_rdev)
                    event(rel, "changed", "not restored: a special file cannot be recreated", false);
                return;
            case Kind::absent:
                return;
        }
    }

    // A directory with `want`'s device and inode, in the workspace (its root first, then
    // breadth first) or in one of `extra`: its parent's fd, its name and where it is.
    struct Found {
        Fd parent;
        std::string name;
        std::string where;
    };

    std::optional<Found> find_dir(int root_fd, const std::string& root_name, const struct stat& want) {
        std::deque<std::pair<std::string, int>> queue{{"", 0}};
        std::size_t visited = 0;
        while (!queue.empty() && visited < kMaxSearchDirs) {
            auto [rel, depth] = queue.front();
            queue.pop_front();
            ++visited;
            Fd d(open_beneath(root_fd, rel, false));
            if (!d.ok()) continue;
            std::vector<std::string> names;
            if (!list_dir(d.get(), names)) continue;
            for (const auto& n : names) {
                struct stat st {};
                if (::fstatat(d.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
                if (st.st_dev == want.st_dev && st.st_ino == want.st_ino)
                    return Found{std::move(d), n, root_name + "/" + join(rel, n)};
                if (depth + 1 < kMaxSearchDepth) queue.emplace_back(join(rel, n), depth + 1);
            }
        }
        return std::nullopt;
    }
};

}  // namespace

std::string TamperEvent::text() const { return path + " " + change + "; " + action; }

WorkspaceGuard::WorkspaceGuard(const std::string& workspace, std::vector<ProtectedPath> paths)
    : workspace_(workspace), paths_(std::move(paths)) {
    ws_fd_ = ::open(workspace.c_str(), kDirFlags);
    if (ws_fd_ < 0)
        throw Error("workspace " + workspace + ": " +
                    syscall_error("open(\"" + workspace + "\", O_DIRECTORY|O_NOFOLLOW)", errno) +
                    "; its protected paths cannot be checked, so the step does not run");
    try {
        Taker t{workspace_};
        // .git: a directory is kept by its identity only (its protected parts are entries of
        // their own); a .git file (a worktree's or submodule's pointer) or symlink by content.
        if (::fstatat(ws_fd_, ".git", &git_.st, AT_SYMLINK_NOFOLLOW) == 0) {
            git_.kind = kind_of(git_.st.st_mode);
            if (git_.kind != Kind::dir) git_ = t.take(ws_fd_, ".git", ".git", 0);
        } else if (errno != ENOENT) {
            t.fail(".git", syscall_error("fstatat(\".git\", AT_SYMLINK_NOFOLLOW)", errno));
        }
        // The submodules' and linked worktrees' git directories: their config, hooks and links.
        for (auto& p : git_admin_paths(ws_fd_)) {
            admin_dirs_.push_back(admin_dir_of(p.rel).first);
            if (!is_protected(p.rel, paths_)) paths_.push_back(std::move(p));
        }
        // core.hooksPath and included config files, wherever in the workspace they lie.
        std::vector<std::string> git_dirs = admin_dirs_;
        if (git_.kind == Kind::dir) git_dirs.push_back("");
        std::sort(git_dirs.begin(), git_dirs.end());
        git_dirs.erase(std::unique(git_dirs.begin(), git_dirs.end()), git_dirs.end());
        for (auto& p : git_run_paths(workspace_, git_dirs))
            if (!is_protected(p.rel, paths_)) paths_.push_back(std::move(p));
        // Nothing changes while the snapshot is taken: each parent directory is opened once
        // (the workspace root is ws_fd_ itself), a missing one is missing for all its entries.
        std::map<std::string, std::pair<Fd, int>> parents;  // parent -> its fd, or the errno
        for (const auto& p : paths_) {
            auto [parent, name] = split_rel(p.rel);
            int pfd = ws_fd_;
            if (!parent.empty()) {
                auto it = parents.find(parent);
                if (it == parents.end()) {
                    Fd opened(open_beneath(ws_fd_, parent, false));
                    int err = opened.ok() ? 0 : errno;
                    it = parents.emplace(parent, std::make_pair(std::move(opened), err)).first;
                }
                pfd = it->second.first.get();
                if (pfd < 0) {
                    int err = it->second.second;
                    // No such directory (or a symlink or a file in its place): the path is absent.
                    if (err == ENOENT || err == ENOTDIR || err == ELOOP) {
                        nodes_.emplace_back();
                        continue;
                    }
                    t.fail(p.rel, syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", err));
                }
            }
            nodes_.push_back(t.take(pfd, name, p.rel, 0));
        }
        bytes_ = t.bytes;
    } catch (...) {
        ::close(ws_fd_);
        ws_fd_ = -1;
        throw;
    }
}

WorkspaceGuard::~WorkspaceGuard() {
    if (ws_fd_ >= 0) ::close(ws_fd_);
}

std::vector<TamperEvent> WorkspaceGuard::restore(const std::vector<std::string>& search_dirs) {
    std::vector<TamperEvent> events;
    Restorer r{events, git_.kind == Kind::absent, workspace_, {}};
    try {
        // 1. .git itself: the same directory, or the original moved back over an impostor.
        if (git_.kind == Kind::dir) {
            struct stat cur {};
            bool exists = ::fstatat(ws_fd_, ".git", &cur, AT_SYMLINK_NOFOLLOW) == 0;
            bool same = exists && S_ISDIR(cur.st_mode) && cur.st_dev == git_.st.st_dev && cur.st_ino == git_.st.st_ino;
            if (!same) {
                auto found = r.find_dir(ws_fd_, ".", git_.st);
                for (std::size_t i = 0; !found && i < search_dirs.size(); ++i) {
                    Fd extra(::open(search_dirs[i].c_str(), kDirFlags));
                    if (extra.ok()) found = r.find_dir(extra.get(), search_dirs[i], git_.st);
                }
                std::string impostor = exists ? "replaced by another " + kind_name(kind_of(cur.st_mode)) : "";
                if (found) {
                    std::string where = found->where.starts_with("./") ? found->where.substr(2) : found->where;
                    if (exists) {
                        std::string e = r.remove_tree(ws_fd_, ".git", 0);
                        r.event(".git", impostor, e.empty() ? "removed the new one" : "new one not removed: " + e, e.empty());
                    }
                    if (::renameat(found->parent.get(), found->name.c_str(), ws_fd_, ".git") == 0) {
                        r.event(".git", "renamed to " + where, "moved back", true);
                    } else {
                        r.event(".git", "renamed to " + where,
                                "not moved back: " + syscall_error("renameat(\"" + where + "\", \".git\")", errno), false);
                    }
                } else {
                    r.event(".git", exists ? impostor : "removed",
                            "not restored: the original directory is nowhere in the workspace", false);
                }
            }
        } else if (git_.kind != Kind::absent) {
            r.reconcile(ws_fd_, ".git", ".git", git_, 0);
        } else {
            // No .git before the step: a new file or symlink there would point git at any
            // directory; a new directory is left, its config and hooks go with the entries below.
            struct stat cur {};
            if (::fstatat(ws_fd_, ".git", &cur, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(cur.st_mode))
                r.reconcile(ws_fd_, ".git", ".git", git_, 0);
        }
        // 2. Every protected path, and those of git directories the step made below .git
        //    (absent before it: what they hold must be inert, or it is removed).
        std::vector<ProtectedPath> paths = paths_;
        std::vector<const GuardNode*> wants;
        for (const auto& n : nodes_) wants.push_back(&n);
        static const GuardNode kAbsent;
        for (auto& p : git_admin_paths(ws_fd_)) {
            if (is_protected(p.rel, paths)) continue;
            std::string dir = admin_dir_of(p.rel).first;
            if (std::find(admin_dirs_.begin(), admin_dirs_.end(), dir) == admin_dirs_.end() &&
                std::find(r.fresh_admin_dirs.begin(), r.fresh_admin_dirs.end(), dir) == r.fresh_admin_dirs.end())
                r.fresh_admin_dirs.push_back(dir);
            paths.push_back(std::move(p));
            wants.push_back(&kAbsent);
        }
        for (std::size_t i = 0; i < paths.size(); ++i) {
            const auto& p = paths[i];
            const GuardNode& want = *wants[i];
            auto [parent, name] = split_rel(p.rel);
            // Opened again for each entry: putting one back may have replaced another's parent.
            Fd opened;
            if (!parent.empty()) {
                std::vector<std::string> replaced;
                opened = Fd(open_beneath(ws_fd_, parent, want.kind != Kind::absent, &replaced));
                int err = errno;
                for (const auto& rp : replaced) r.event(rp, "replaced by a symlink or file", "removed", true);
                errno = err;
                if (!opened.ok()) {
                    if (want.kind == Kind::absent && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)) continue;
                    r.event(p.rel, "cannot be reached",
                            "not restored: " + syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno),
                            false);
                    continue;
                }
            }
            r.reconcile(parent.empty() ? ws_fd_ : opened.get(), name, p.rel, want, 0);
        }
    } catch (const std::exception& e) {
        r.event(".", "check failed", std::string("not restored: ") + e.what(), false);
    }
    return events;
}

// ---- the journal ----------------------------------------------------------------------------

namespace {

using json = nlohmann::json;

json stat_to_json(const struct stat& st) {
    return json::array({st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_uid, st.st_gid, st.st_rdev,
                        st.st_size, st.st_atim.tv_sec, st.st_atim.tv_nsec, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                        st.st_ctim.tv_sec, st.st_ctim.tv_nsec});
}

struct stat stat_from_json(const json& j) {
    struct stat st {};
    if (!j.is_array() || j.size() != 14) throw Error("a file's identity is not 14 numbers");
    st.st_dev = j[0].get<dev_t>();
    st.st_ino = j[1].get<ino_t>();
    st.st_mode = j[2].get<mode_t>();
    st.st_nlink = j[3].get<nlink_t>();
    st.st_uid = j[4].get<uid_t>();
    st.st_gid = j[5].get<gid_t>();
    st.st_rdev = j[6].get<dev_t>();
    st.st_size = j[7].get<off_t>();
    st.st_atim = {j[8].get<time_t>(), j[9].get<long>()};
    st.st_mtim = {j[10].get<time_t>(), j[11].get<long>()};
    st.st_ctim = {j[12].get<time_t>(), j[13].get<long>()};
    return st;
}

json node_to_json(const GuardNode& n) {
    json j = {{"k", static_cast<int>(n.kind)}, {"r", n.readable}, {"l", n.too_large}, {"s", stat_to_json(n.st)},
              {"d", json::binary(std::vector<std::uint8_t>(n.data.begin(), n.data.end()))}};
    if (!n.children.empty()) {
        json c = json::array();
        for (const auto& [name, child] : n.children) c.push_back(json::array({name, node_to_json(child)}));
        j["c"] = std::move(c);
    }
    return j;
}

GuardNode node_from_json(const json& j, int depth) {
    if (depth > kMaxDepth + 1) throw Error("the snapshot is nested deeper than a snapshot can be");
    GuardNode n;
    int k = j.at("k").get<int>();
    if (k < 0 || k > static_cast<int>(Kind::other)) throw Error("unknown kind of entry " + std::to_string(k));
    n.kind = static_cast<Kind>(k);
    n.readable = j.at("r").get<bool>();
    n.too_large = j.at("l").get<bool>();
    n.st = stat_from_json(j.at("s"));
    const auto& bin = j.at("d").get_binary();
    n.data.assign(bin.begin(), bin.end());
    if (j.contains("c"))
        for (const auto& c : j["c"]) {
            std::string name = c.at(0).get<std::string>();
            // One entry of a directory: a name, never a path (the restore goes by directory fds).
            if (name.find('/') != std::string::npos || !tree::relative_inside(name))
                throw Error("its snapshot names an entry \"" + name + "\", not a file name");
            n.children.emplace_back(std::move(name), node_from_json(c.at(1), depth + 1));
        }
    return n;
}

}  // namespace

std::string WorkspaceGuard::to_journal() const {
    struct stat ws {};
    ::fstat(ws_fd_, &ws);
    json paths = json::array(), nodes = json::array();
    for (const auto& p : paths_) paths.push_back(json::array({p.rel, p.dir}));
    for (const auto& n : nodes_) nodes.push_back(node_to_json(n));
    json j = {{"workspace", workspace_}, {"ws", json::array({ws.st_dev, ws.st_ino})}, {"paths", paths},
              {"nodes", nodes},          {"git", node_to_json(git_)},               {"admin_dirs", admin_dirs_}};
    std::vector<std::uint8_t> bytes = json::to_cbor(j);
    return std::string(bytes.begin(), bytes.end());
}

std::unique_ptr<WorkspaceGuard> WorkspaceGuard::from_journal(const std::string& bytes,
                                                             const std::string& workspace) {
    std::unique_ptr<WorkspaceGuard> g(new WorkspaceGuard());
    try {
        json j = json::from_cbor(bytes);
        g->workspace_ = j.at("workspace").get<std::string>();
        // A snapshot restores only inside the workspace at hand, by names relative to it.
        if (g->workspace_ != workspace)
            throw Error("its snapshot is of " + g->workspace_ + ", not of the workspace " + workspace);
        for (const auto& p : j.at("paths")) g->paths_.push_back({p.at(0).get<std::string>(), p.at(1).get<bool>()});
        for (const auto& n : j.at("nodes")) g->nodes_.push_back(node_from_json(n, 0));
        if (g->nodes_.size() != g->paths_.size()) throw Error("paths and their states do not pair up");
        g->git_ = node_from_json(j.at("git"), 0);
        g->admin_dirs_ = j.at("admin_dirs").get<std::vector<std::string>>();
        for (const auto& p : g->paths_)
            if (!tree::relative_inside(p.rel)) throw Error("its snapshot names \"" + p.rel + "\", a path outside the workspace");
        for (const auto& d : g->admin_dirs_)
            if (!tree::relative_inside(d)) throw Error("its snapshot names \"" + d + "\", a path outside the workspace");
        g->ws_fd_ = ::open(g->workspace_.c_str(), kDirFlags);
        if (g->ws_fd_ < 0)
            throw Error(syscall_error("open(\"" + g->workspace_ + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
        struct stat ws {};
        ::fstat(g->ws_fd_, &ws);
        if (ws.st_dev != j.at("ws").at(0).get<dev_t>() || ws.st_ino != j.at("ws").at(1).get<ino_t>())
            throw Error(g->workspace_ + " is not the directory the step ran in (another device or inode)");
    } catch (const json::exception& e) {
        throw Error(std::string("the journal's snapshot cannot be read: ") + e.what());
    }
    return g;
}

// ---- the report ------------------------------------------------------------------------------

std::string tamper_line(const TamperEvent& e, const TamperContext& ctx) {
    std::string command;
    for (const auto& a : ctx.argv) command += (command.empty() ? "" : " ") + a;
    if (command.size() > 4096) command.resize(4096);
    nlohmann::json j = {{"time", now_iso8601()}, {"event", "tamper"},     {"tool", "run"},
                        {"verdict", "tamper"},   {"rule", "cage.tamper"}, {"reason", e.text()},
                        {"path", e.path},        {"change", e.change},    {"action", e.action},
                        {"undone", e.undone},    {"workspace", ctx.workspace}, {"profile", ctx.policy},
                        {"command", command}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int report_tamper(const std::vector<TamperEvent>& events, int step_status, const TamperContext& ctx) {
    if (events.empty()) return step_status;
    std::vector<std::string> lines;
    for (const auto& e : events) {
        std::fprintf(stderr, "toolcage run: tamper: %s\n", e.text().c_str());
        lines.push_back(tamper_line(e, ctx));
    }
    std::fprintf(stderr,
                 "toolcage run: the step changed files in %s that other programs obey or run "
                 "(cage.protected_paths); exit status %d (the step's own was %d)\n",
                 ctx.workspace.c_str(), kTamperExit, step_status);
    std::string err = append_to_decision_log(lines);
    if (!err.empty()) std::fprintf(stderr, "toolcage run: warning: tamper events not logged: %s\n", err.c_str());
    return kTamperExit;
}

}  // namespace toolcage::cage
