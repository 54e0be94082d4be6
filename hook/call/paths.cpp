#include "hook/call/paths.h"

#include <pwd.h>

#include <cstdio>
#include <string_view>

#include "common/path_resolver.h"
#include "common/path_text.h"
#include "common/self_exe.h"

namespace toolcage::hook {

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

std::string joined_path(const std::string& path, const std::string& base, const std::string& home) {
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
    return p;
}

std::string absolute_path(const std::string& path, const std::string& base, const std::string& home) {
    return normal_path(joined_path(path, base, home));
}

std::string real_location(const std::string& abs) {
    if (abs.empty() || abs[0] != '/') return abs;
    Resolution r = PathResolver().trace(abs);
    return r.error.empty() ? r.path : abs;
}

bool path_within(const std::string& p, const std::string& dir) {
    if (dir.empty() || p.empty()) return false;
    if (dir == "/") return p[0] == '/';
    if (!p.starts_with(dir)) return false;
    return p.size() == dir.size() || p[dir.size()] == '/';
}

std::string self_binary_dir() { return self_exe_dir(); }

std::string glob_base(const std::string& base, const std::string& pattern) {
    std::string dir = pattern.starts_with("/") ? "" : base;
    std::size_t at = 0;
    for (;;) {
        const std::size_t end = pattern.find('/', at);
        if (end == std::string::npos) break;  // the last component names files, not a directory
        const std::string part = pattern.substr(at, end - at);
        if (part.find_first_of("*?[{") != std::string::npos) break;
        if (!part.empty()) dir += "/" + part;
        at = end + 1;
    }
    return dir.empty() ? "/" : dir;
}

}  // namespace toolcage::hook
