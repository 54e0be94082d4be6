#include "common/git_run_places.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/git_config.h"
#include "common/path_text.h"

namespace toolcage::gitconfig {

namespace {

constexpr std::size_t kMaxConfig = 1 << 20;
constexpr int kMaxIncludeDepth = 10;
constexpr std::size_t kMaxIncludes = 64;

// `name` as git resolves a path in config: "~/" is the home, a relative one lies in `base`.
std::string resolve(const std::string& name, const std::string& base, const std::string& home) {
    if (name.empty()) return {};
    if (name == "~" || name.starts_with("~/")) return home.empty() ? std::string() : normal_path(home + name.substr(1));
    if (name[0] == '/') return normal_path(name);
    if (base.empty()) return {};
    return normal_path(base + "/" + name);
}

bool read_small(const std::string& path, std::string& out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= kMaxConfig;
    if (ok) {
        out.resize(static_cast<std::size_t>(st.st_size));
        ssize_t n = ::read(fd, out.data(), out.size());
        ok = n >= 0;
        out.resize(ok ? static_cast<std::size_t>(n) : 0);
    }
    ::close(fd);
    return ok;
}

struct Reader {
    const std::string& worktree;
    const std::string& home;
    RunPlaces places;

    void read(const std::string& file, int depth) {
        std::string text;
        if (!read_small(file, text)) return;
        const std::string dir = std::filesystem::path(file).parent_path().string();
        std::vector<std::string> next;
        parse(text, [&](const Entry& e) {
            if (e.section == "core" && e.name == "hookspath" && e.has_value)
                places.hooks_path = resolve(e.value, worktree, home);
            bool include = (e.section == "include" || e.section == "includeif") && e.name == "path" && e.has_value;
            if (!include) return;
            std::string target = resolve(e.value, dir, home);
            if (target.empty() || places.includes.size() >= kMaxIncludes) return;
            if (std::find(places.includes.begin(), places.includes.end(), target) != places.includes.end()) return;
            places.includes.push_back(target);
            next.push_back(target);
        });
        if (depth < kMaxIncludeDepth)
            for (const auto& n : next) read(n, depth + 1);
    }
};

}  // namespace

RunPlaces run_places(const std::vector<std::string>& configs, const std::string& worktree, const std::string& home) {
    Reader r{worktree, home, {}};
    for (const auto& c : configs) r.read(c, 0);
    if (!r.places.hooks_path.empty()) {
        r.places.hook_dirs.push_back(r.places.hooks_path);
        // husky (v9): core.hooksPath is .husky/_, whose stubs run the user's .husky/<hook>.
        if (std::filesystem::path(r.places.hooks_path).filename() == "_")
            r.places.hook_dirs.push_back(std::filesystem::path(r.places.hooks_path).parent_path().string());
    }
    return r.places;
}

}  // namespace toolcage::gitconfig
