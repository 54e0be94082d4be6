#include "common/workspace_choice.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/path_resolver.h"
#include "common/policy_loader.h"
#include "common/path_text.h"
#include "common/self_exe.h"
#include "common/user_home.h"

namespace fs = std::filesystem;

namespace toolcage::workspace {

namespace {

// `p` is `dir` or lies below it.
bool within(const std::string& p, const std::string& dir) {
    if (dir == "/") return true;
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

// `resolver` looks each directory up once for all the kept places (they share the homes).
void keep_out_of(Guarded& g, PathResolver& resolver, const std::string& path, const std::string& what,
                 bool inside_too = true) {
    if (path.empty() || path[0] != '/') return;
    g.keep_out.push_back({normal_path(path), what, inside_too});
    // The same place by its real name, when a symlink leads there.
    std::string real = resolver.resolve(path);
    if (real != normal_path(path)) g.keep_out.push_back({normal_path(real), what, inside_too});
}

void add_home(Guarded& g, const char* h) {
    if (!h || h[0] != '/') return;
    std::string n = normal_path(h);
    for (const auto& x : g.homes)
        if (x == n) return;
    g.homes.push_back(n);
}

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

Guarded guarded_from_process() {
    std::vector<std::string> dirs;
    for (const auto& d : profile_dirs()) dirs.push_back(d.string());
    return guarded_from_process(dirs);
}

Guarded guarded_from_process(const std::vector<std::string>& policy_dirs) {
    Guarded g;
    PathResolver resolver;
    auto add_kept = [&](Guarded& to, const std::string& path, const std::string& what, bool inside_too = true) {
        keep_out_of(to, resolver, path, what, inside_too);
    };
    add_home(g, std::getenv("HOME"));
    if (const std::string& h = user_home(); !h.empty()) add_home(g, h.c_str());
    // Each home by its real name too: a workspace's real name is judged against them.
    for (const auto& h : std::vector<std::string>(g.homes)) add_home(g, resolver.resolve(h).c_str());
    if (const std::string& bin = self_exe_dir(); !bin.empty()) add_kept(g, bin, "toolcage's own binaries", false);
    for (const auto& d : policy_dirs) add_kept(g, d, "toolcage's installed policies");
    // A step may write all of its workspace: never one that holds toolcage's journal.
    for (const auto& d : private_state_dirs()) add_kept(g, d, "toolcage's own state", true);
    if (const char* hh = std::getenv("HERMES_HOME"); hh && hh[0] == '/')
        add_kept(g, hh, "Hermes' home ($HERMES_HOME)");
    for (const auto& h : std::vector<std::string>(g.homes)) {
        add_kept(g, h + "/.hermes", "Hermes' configuration");
        add_kept(g, h + "/.claude", "Claude Code's configuration");
        add_kept(g, h + "/.claude.json", "Claude Code's configuration");
        add_kept(g, h + "/.openclaw", "OpenClaw's configuration");
    }
    return g;
}

std::string refusal(const std::string& dir_in, const Guarded& g) {
    if (dir_in.empty() || dir_in[0] != '/') return "is not an absolute path";
    const std::string dir = normal_path(dir_in);
    if (dir == "/") return "is the root directory";
    // Directories every user and program share: the step could write what others run or read.
    for (std::string_view shared : {"/tmp", "/var/tmp", "/dev/shm", "/run", "/var", "/usr", "/etc", "/opt", "/home",
                                    "/srv", "/mnt", "/media"})
        if (dir == shared)
            return "is " + dir + ", shared with every user and program on this machine; use a directory of its own under it";
    for (const auto& h : g.homes) {
        if (dir == h) return "is the home directory";
        if (within(h, dir)) return "holds the home directory " + h;
        // ~/.ssh, ~/.config, ~/.cargo, ~/.npm, ~/.local…: settings, keys and what other programs
        // load, never a project (a cage that may write there plants a key or a plugin).
        if (within(dir, h) && dir.size() > h.size() + 1 && dir[h.size() + 1] == '.') {
            size_t end = dir.find('/', h.size() + 1);
            return "is inside " + dir.substr(0, end) + ", a dot-directory of the home";
        }
    }
    for (const auto& k : g.keep_out) {
        if (within(k.path, dir)) return "holds " + k.path + " (" + k.what + ")";
        if (k.inside_too && within(dir, k.path)) return "is inside " + k.path + " (" + k.what + ")";
    }
    return {};
}

const std::vector<std::string>& project_markers() {
    // Sorted; each is the file a build tool or language makes its project's root.
    static const std::vector<std::string> markers = {
        ".git",            // a git repository or worktree (the usual case)
        ".hg",             // Mercurial
        "Cargo.toml",      // Rust
        "CMakeLists.txt",  // CMake
        "Gemfile",         // Ruby
        "Makefile",        // make
        "build.gradle",    // Gradle
        "go.mod",          // Go
        "package.json",    // Node
        "pom.xml",         // Maven
        "pyproject.toml",  // Python
        "setup.py",        // Python (older layout)
    };
    return markers;
}

std::string choose(const std::string& workdir_in, const Guarded& g) {
    if (workdir_in.empty() || workdir_in[0] != '/') return {};
    const std::string workdir = normal_path(workdir_in);
    // A directory is judged by its name and by where its symlinks lead (a cage opens the real
    // one): `proj -> ~/.ssh` is the home's .ssh, whatever its name says.
    PathResolver resolver;
    auto refused = [&](const std::string& dir) {
        return !refusal(dir, g).empty() || !refusal(resolver.resolve(dir), g).empty();
    };
    if (refused(workdir)) return {};
    // The directories a workspace may be, nearest first: the walk stops at the first that may not.
    std::vector<fs::path> up;
    for (fs::path p = workdir;; p = p.parent_path()) {
        if (refused(p.string())) break;
        up.push_back(p);
        if (p == p.parent_path()) break;
    }
    for (const auto& p : up)
        if (present(p / ".git")) return p.string();
    // A repository above the walk's end (dotfiles in the home, a .git at /) would have made
    // its top the workspace: the project below it is the nearest directory with a marker. In a
    // home, a directory is a workspace only as part of a project: the agent names its working
    // directory, and ~/Downloads or ~/bin is not one to hand a cage that writes.
    bool git_above = false;
    for (fs::path p = up.back().parent_path(); !git_above; p = p.parent_path()) {
        git_above = present(p / ".git");
        if (p == p.parent_path()) break;
    }
    bool in_home = std::ranges::any_of(g.homes, [&](const std::string& h) { return within(workdir, h); });
    if (git_above || in_home)
        for (const auto& p : up)
            for (const auto& m : project_markers())
                if (present(p / m)) return p.string();
    if (in_home) return {};
    return workdir;
}

}  // namespace toolcage::workspace
