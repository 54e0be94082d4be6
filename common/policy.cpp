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

std::string derived_rule_id(const std::string& program, const std::vector<std::string>& words) {
    std::string id = "policy." + program;
    for (std::size_t i = 0; i < words.size(); ++i) id += (i == 0 ? "." : "-") + words[i];
    std::string out;
    for (char ch : id) {
        char l = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
        bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '_' || l == '-';
        if (!ok) l = '-';
        // "--force" reads as "force": no runs of '-'.
        if (l == '-' && !out.empty() && (out.back() == '-' || out.back() == '.')) continue;
        out += l;
    }
    while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
    if (out.size() > 80) out.resize(80);
    return out;
}

}  // namespace toolcage
