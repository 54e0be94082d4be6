#include "common/path_text.h"

#include <string_view>
#include <vector>

namespace toolcage {

// Plain string work, the same rules as std::filesystem::path::lexically_normal: the hook and
// the workspace choice normalise every path they look at, and path objects cost ten times as much.
std::string normal_path(const std::string& p) {
    const bool absolute = !p.empty() && p[0] == '/';
    std::vector<std::string_view> parts;
    const std::string_view s(p);
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t end = s.find('/', i);
        if (end == std::string_view::npos) end = s.size();
        std::string_view part = s.substr(i, end - i);
        i = end + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (!parts.empty() && parts.back() != "..") {
                parts.pop_back();
            } else if (!absolute) {
                parts.push_back(part);  // nothing lies above the root; a relative path keeps it
            }
            continue;
        }
        parts.push_back(part);
    }
    std::string out = absolute ? "/" : "";
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k > 0) out += '/';
        out += parts[k];
    }
    if (out.empty() && !p.empty()) out = ".";
    return out;
}

bool path_within(const std::string& p, const std::string& dir) {
    if (dir == "/") return !p.empty() && p[0] == '/';
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

}  // namespace toolcage
