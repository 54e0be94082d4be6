#include "common/path_resolver.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/path_text.h"

namespace toolcage {

std::string PathResolver::resolve(const std::string& p) {
    std::string out;
    links_ = 0;
    if (!p.empty() && p[0] == '/' && walk(p, out, 0)) return out;
    return std::filesystem::path(p).lexically_normal().string();
}

// False when the path cannot be looked at (a loop, a refused lookup).
bool PathResolver::walk(const std::string& p, std::string& out, int depth) {
    std::string cur;  // resolved so far; "" is the root
    std::size_t i = 0;
    while (i < p.size()) {
        std::size_t j = p.find('/', i);
        if (j == std::string::npos) j = p.size();
        std::string part = p.substr(i, j - i);
        i = j + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {  // of the resolved directory, as the kernel walks it
            cur.resize(cur.empty() ? 0 : cur.rfind('/'));
            continue;
        }
        std::string next = cur + "/" + part;
        auto it = seen_.find(next);
        if (it == seen_.end()) it = seen_.emplace(next, look(cur, next, depth)).first;
        if (!it->second) {  // absent: the rest as written
            std::string rest = i < p.size() ? p.substr(i) : "";
            out = normal_path(next + "/" + rest);
            return true;
        }
        if (it->second->empty()) return false;  // cannot be looked at
        cur = *it->second == "/" ? "" : *it->second;
    }
    out = cur.empty() ? "/" : cur;
    return true;
}

// What `next` (a child of the resolved `cur`) resolves to; "" when it cannot be looked at.
std::optional<std::string> PathResolver::look(const std::string& cur, const std::string& next, int depth) {
    char buf[4096];
    ssize_t n = ::readlink(next.c_str(), buf, sizeof buf);
    if (n < 0) {
        if (errno == EINVAL) return next;  // not a symlink
        if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
        return std::string();
    }
    if (static_cast<std::size_t>(n) == sizeof buf || ++links_ > kMaxLinks || depth > kMaxLinks)
        return std::string();
    std::string target(buf, static_cast<std::size_t>(n));
    if (target[0] != '/') target = cur + "/" + target;
    std::string out;
    if (!walk(target, out, depth + 1)) return std::string();
    return out;
}

}  // namespace toolcage
