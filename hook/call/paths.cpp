#include "hook/call/paths.h"

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>

#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "common/path_text.h"
#include "common/self_exe.h"

namespace toolcage::hook {

namespace fs = std::filesystem;

// Plain string work rather than std::filesystem::path (normal_path): the self-protection check
// resolves every word of a command, before every tool call, and path objects cost ten times as much.
namespace {

std::string parent_of(const std::string& abs) {
    size_t slash = abs.rfind('/');
    return slash == 0 || slash == std::string::npos ? std::string("/") : abs.substr(0, slash);
}

}  // namespace

std::string user_home(std::string_view name) {
    // The names an agent's tool passes on to the shell's ~name (Hermes checks the same set).
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                               "0123456789._-") != std::string_view::npos)
        return {};
    // /etc/passwd read directly: this binary is static, and glibc's NSS modules (dlopen'ed)
    // cannot be relied on in it.
    FILE* f = std::fopen("/etc/passwd", "re");
    if (!f) return {};
    std::string home;
    struct passwd pw {};
    struct passwd* entry = nullptr;
    char buf[4096];
    while (::fgetpwent_r(f, &pw, buf, sizeof buf, &entry) == 0 && entry)
        if (name == entry->pw_name && entry->pw_dir && entry->pw_dir[0] == '/') {
            home = entry->pw_dir;
            break;
        }
    std::fclose(f);
    return home;
}

std::string absolute_path(const std::string& path, const std::string& base, const std::string& home) {
    if (path.empty()) return {};
    std::string p = path;
    if (p == "~") {
        p = home;
    } else if (p.starts_with("~/")) {
        p = home + p.substr(1);
    } else if (p.starts_with("~")) {
        // ~name/rest: that user's home, from the user database, as the shell expands it. A name
        // /etc/passwd does not know may still be another directory service's user: it becomes a
        // path at the root, which no workspace holds (refused rather than guessed).
        size_t slash = p.find('/');
        std::string_view name = std::string_view(p).substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
        std::string h = user_home(name);
        if (h.empty() && !name.empty() &&
            name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                std::string_view::npos)
            h = "/~" + std::string(name);
        if (!h.empty()) p = h + (slash == std::string::npos ? std::string() : p.substr(slash));
    }
    if (p.empty() || p[0] != '/') p = (base.empty() ? std::string("/") : base) + "/" + p;
    return normal_path(p);
}

namespace {

// The real path of an existing directory. The kernel already knows it: one open(O_PATH) and one
// readlink of /proc/self/fd/N instead of a readlink per component; canonical() without /proc.
// Remembered for the process, which lives for one tool call.
std::string real_dir(const std::string& dir) {
    static std::map<std::string, std::string> cache;
    if (auto it = cache.find(dir); it != cache.end()) return it->second;
    std::string real;
    int fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[PATH_MAX];
        std::string link = "/proc/self/fd/" + std::to_string(fd);
        ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
        if (n > 0 && static_cast<size_t>(n) < sizeof buf && buf[0] == '/') real.assign(buf, static_cast<size_t>(n));
        ::close(fd);
    }
    if (real.empty()) {
        std::error_code ec;
        real = fs::canonical(dir, ec).string();
        if (ec) real.clear();
    }
    cache.emplace(dir, real);
    return real;
}

// The real path of something that exists and is not a symlink.
std::string real_existing(const std::string& p, bool is_dir) {
    if (is_dir) return real_dir(p);
    if (p == "/") return "/";
    std::string parent = real_dir(parent_of(p));
    if (parent.empty()) return {};
    return parent == "/" ? "/" + p.substr(p.rfind('/') + 1) : parent + p.substr(p.rfind('/'));
}

}  // namespace

std::string real_location(const std::string& abs) {
    if (abs.empty() || abs[0] != '/') return abs;
    std::string p = abs;
    // A symlink is followed by hand (dangling or not): a write through it lands where it points.
    for (int hops = 0; hops < 40; ++hops) {
        std::string existing = normal_path(p);
        std::string rest;
        struct stat st {};
        while (::lstat(existing.c_str(), &st) != 0) {
            if (existing == "/") return abs;
            size_t slash = existing.rfind('/');
            std::string name = existing.substr(slash + 1);
            rest = rest.empty() ? name : name + "/" + rest;
            existing = slash == 0 ? std::string("/") : existing.substr(0, slash);
        }
        if (!S_ISLNK(st.st_mode)) {
            std::string real = real_existing(existing, S_ISDIR(st.st_mode));
            if (real.empty()) return abs;
            return normal_path(rest.empty() ? real : real + "/" + rest);
        }
        char buf[PATH_MAX];
        ssize_t n = ::readlink(existing.c_str(), buf, sizeof buf);
        if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return abs;
        std::string target(buf, static_cast<size_t>(n));
        if (target[0] != '/') target = parent_of(existing) + "/" + target;
        p = rest.empty() ? target : target + "/" + rest;
    }
    return abs;
}

bool path_within(const std::string& p, const std::string& dir) {
    if (dir.empty() || p.empty()) return false;
    if (dir == "/") return p[0] == '/';
    if (!p.starts_with(dir)) return false;
    return p.size() == dir.size() || p[dir.size()] == '/';
}

std::string self_binary_dir() { return self_exe_dir(); }

}  // namespace toolcage::hook
