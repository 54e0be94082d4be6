#include "common/path_text.h"

#include <filesystem>

namespace toolcage {

std::string normal_path(const std::string& p) {
    std::string n = std::filesystem::path(p).lexically_normal().string();
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    return n;
}

bool path_within(const std::string& p, const std::string& dir) {
    if (dir == "/") return !p.empty() && p[0] == '/';
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

}  // namespace toolcage
