#include "hook/decision/context_files.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace toolcage::hook {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// The names prompt_builder.py reads (0.19.0 and 0.20.3 alike), and AGENTS.override.md, which
// 0.20's subdirectory hints read too.
constexpr std::string_view kNames[] = {".cursorrules", ".hermes.md", "agents.md", "agents.override.md", "claude.md",
                                       "hermes.md"};

// A project's own skills (0.20, once the user trusts the project): every file below these.
constexpr std::string_view kSkillDirs[] = {"/.agents/skills/", "/.hermes/skills/"};

}  // namespace

bool is_context_file(const std::string& path) {
    std::string p = lower(path);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const auto slash = p.rfind('/');
    const std::string_view name = slash == std::string::npos ? std::string_view(p) : std::string_view(p).substr(slash + 1);
    if (std::ranges::find(kNames, name) != std::end(kNames)) return true;
    for (std::string_view d : kSkillDirs)
        if (p.find(d) != std::string::npos) return true;
    // .cursor/rules/*.mdc, directly in the rules directory.
    const std::string_view dir = slash == std::string::npos ? std::string_view() : std::string_view(p).substr(0, slash);
    return name.ends_with(".mdc") && dir.ends_with("/.cursor/rules");
}

std::string written_text(const nlohmann::json& input) {
    if (!input.is_object()) return {};
    std::string out;
    for (const char* k : {"content", "old_string", "new_string", "patch"}) {
        auto it = input.find(k);
        if (it == input.end() || !it->is_string()) continue;
        out += "\n" + std::string(k) + ": " + it->get<std::string>();
    }
    return out;
}

}  // namespace toolcage::hook
