#include "hook/adapters/paths.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace toolcage::hook {

namespace fs = std::filesystem;

namespace {

std::string normal_string(const fs::path& p) {
    std::string out = p.lexically_normal().string();
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    // lexically_normal keeps a leading "/.." as "/..": nothing lies above the root.
    while (out.starts_with("/../")) out.erase(0, 3);
    if (out == "/..") out = "/";
    return out;
}

}  // namespace

std::string absolute_path(const std::string& path, const std::string& base,
                          const std::string& home) {
    if (path.empty()) return {};
    std::string p = path;
    if (p == "~") {
        p = home;
    } else if (p.starts_with("~/")) {
        p = home + p.substr(1);
    }
    fs::path fp(p);
    if (fp.is_relative()) fp = fs::path(base.empty() ? "/" : base) / fp;
    return normal_string(fp);
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
std::string real_existing(const fs::path& p, bool is_dir) {
    if (is_dir) return real_dir(p.string());
    if (p == p.root_path()) return "/";
    std::string parent = real_dir(p.parent_path().string());
    if (parent.empty()) return {};
    return (fs::path(parent) / p.filename()).string();
}

}  // namespace

std::string real_location(const std::string& abs) {
    if (abs.empty() || abs[0] != '/') return abs;
    fs::path p(abs);
    // A symlink is followed by hand (dangling or not): a write through it lands where it points.
    for (int hops = 0; hops < 40; ++hops) {
        fs::path existing = fs::path(normal_string(p));
        fs::path rest;
        std::error_code ec;
        fs::file_status st;
        while (true) {
            st = fs::symlink_status(existing, ec);
            if (!ec && st.type() != fs::file_type::not_found) break;
            if (existing == existing.root_path()) return abs;
            rest = rest.empty() ? existing.filename() : existing.filename() / rest;
            existing = existing.parent_path();
        }
        if (st.type() != fs::file_type::symlink) {
            std::string real = real_existing(existing, st.type() == fs::file_type::directory);
            if (real.empty()) return abs;
            return normal_string(rest.empty() ? fs::path(real) : fs::path(real) / rest);
        }
        fs::path target = fs::read_symlink(existing, ec);
        if (ec) return abs;
        if (target.is_relative()) target = existing.parent_path() / target;
        p = rest.empty() ? target : target / rest;
    }
    return abs;
}

bool path_within(const std::string& p, const std::string& dir) {
    if (dir.empty() || p.empty()) return false;
    if (dir == "/") return p[0] == '/';
    if (!p.starts_with(dir)) return false;
    return p.size() == dir.size() || p[dir.size()] == '/';
}

std::string self_binary_dir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().string();
}

}  // namespace toolcage::hook
