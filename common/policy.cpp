#include "common/policy.h"

#include <array>
#include <utility>

namespace toolcage {

namespace {
constexpr std::array<std::pair<PathClass, std::string_view>, 8> kPathClassNames{{
    {PathClass::workspace, "workspace"},
    {PathClass::workspace_root, "workspace_root"},
    {PathClass::git_dir, "git_dir"},
    {PathClass::temp, "temp"},
    {PathClass::home, "home"},
    {PathClass::system, "system"},
    {PathClass::root, "root"},
    {PathClass::unknown, "unknown"},
}};
}  // namespace

std::string_view to_string(PathClass c) {
    for (const auto& [k, n] : kPathClassNames)
        if (k == c) return n;
    return "unknown";
}

std::optional<PathClass> path_class_from_string(std::string_view s) {
    for (const auto& [k, n] : kPathClassNames)
        if (n == s) return k;
    return std::nullopt;
}

}  // namespace toolcage
