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

namespace {

constexpr const char* kProjectFix =
    "run it in a project (a directory with .git or a project file such as package.json), or start one "
    "in a work root of the policy (\"workspace\": {\"roots\": [\"~/work\"]})";

// Why `dir` cannot be a workspace, and what to do instead; `why` empty when it can.
struct Refusal {
    std::string why;
    std::string fix;
    bool inside_config = false;  // in a dot-directory of the home or in toolcage's or an agent's files
};

Refusal refuse(const std::string& dir_in, const Guarded& g) {
    if (dir_in.empty() || dir_in[0] != '/')
        return {"is not an absolute path", "give the directory's absolute path"};
    const std::string dir = normal_path(dir_in);
    if (dir == "/") return {"is the root directory", kProjectFix};
    // Directories every user and program share: the step could write what others run or read.
    for (std::string_view shared : {"/tmp", "/var/tmp", "/dev/shm", "/run", "/var", "/usr", "/etc", "/opt", "/home",
                                    "/srv", "/mnt", "/media"})
        if (dir == shared)
            return {"is shared with every user and program on this machine",
                    "make a directory of its own under it (mkdir " + dir + "/NAME) and run it there"};
    for (const auto& h : g.homes) {
        if (dir == h) return {"is the home directory", kProjectFix};
        if (within(h, dir)) return {"holds the home directory " + h, kProjectFix};
        // ~/.ssh, ~/.config, ~/.cargo, ~/.npm, ~/.local…: settings, keys and what other programs
        // load, never a project (a cage that may write there plants a key or a plugin).
        if (within(dir, h) && dir.size() > h.size() + 1 && dir[h.size() + 1] == '.') {
            size_t end = dir.find('/', h.size() + 1);
            return {"is inside " + dir.substr(0, end) + ", a dot-directory of the home (settings and keys other "
                    "programs load)",
                    "run it in a project outside the home's dot-directories", true};
        }
    }
    for (const auto& k : g.keep_out) {
        if (within(k.path, dir))
            return {"holds " + k.path + " (" + k.what + ")", "run it in a project that does not hold " + k.path};
        if (k.inside_too && within(dir, k.path))
            return {"is inside " + k.path + " (" + k.what + ")", "run it in a project outside " + k.path, true};
    }
    return {};
}

// The sentence for a directory that cannot be a workspace: the directory, why, and the fix.
std::string refusal_sentence(const std::string& dir, const Refusal& r) {
    return dir + " " + r.why + ", so it cannot be a workspace (a step that writes may write all of its workspace); " +
           r.fix;
}

}  // namespace

std::string refusal(const std::string& dir_in, const Guarded& g) { return refuse(dir_in, g).why; }

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

namespace {

// `p` with a home it lies in written "~" (for a policy's work root); else `p`.
std::string tilde(const std::string& p, const Guarded& g) {
    for (const auto& h : g.homes)
        if (within(p, h)) return p == h ? "~" : "~" + p.substr(h.size());
    return p;
}

// The deepest work root that holds `dir`, or null.
const std::string* root_of(const std::string& dir, const Guarded& g) {
    const std::string* best = nullptr;
    for (const auto& r : g.roots)
        if (within(dir, r) && (!best || r.size() > best->size())) best = &r;
    return best;
}

// Below work root `root`: the nearest .git between `workdir` and the root, else the root's child
// that holds `workdir` (a project of its own, one just made included).
Choice in_root(const std::string& workdir, const std::string& root, const Guarded& g) {
    if (workdir == root)
        return {{},
                workdir + " is a work root of the policy (\"workspace\": {\"roots\"}): it holds projects and a "
                "step that writes may write only in one of them; start a project here (git clone URL DIR, "
                "mkdir DIR, npm create, cargo new DIR, uv init DIR) or cd into one under it",
                root};
    for (fs::path p = workdir; p.string() != root && p != p.parent_path(); p = p.parent_path()) {
        if (!refuse(p.string(), g).why.empty()) break;
        if (present(p / ".git")) return {p.string(), {}, {}};
    }
    const size_t end = workdir.find('/', root.size() + 1);
    const std::string child = workdir.substr(0, end);
    if (Refusal r = refuse(child, g); !r.why.empty()) return {{}, refusal_sentence(child, r), {}};
    return {child, {}, {}};
}

}  // namespace

std::string choose(const std::string& workdir_in, const Guarded& g) { return decide(workdir_in, g).dir; }

std::string refusal_sentence(const std::string& dir_in, const Guarded& g) {
    if (Refusal r = refuse(dir_in, g); !r.why.empty()) return refusal_sentence(dir_in, r);
    const std::string dir = normal_path(dir_in);
    if (std::ranges::find(g.roots, dir) != g.roots.end()) return in_root(dir, dir, g).reason;
    return {};
}

Choice decide(const std::string& workdir_in, const Guarded& g) {
    if (workdir_in.empty() || workdir_in[0] != '/')
        return {{}, "\"" + workdir_in + "\" is not an absolute path, so toolcage cannot tell which directory a "
                    "step would write; give the directory's absolute path", {}};
    const std::string workdir = normal_path(workdir_in);
    // A directory is judged by its name and by where its symlinks lead (a cage opens the real
    // one): `proj -> ~/.ssh` is the home's .ssh, whatever its name says.
    PathResolver resolver;
    auto refused = [&](const std::string& dir) {
        return !refusal(dir, g).empty() || !refusal(resolver.resolve(dir), g).empty();
    };
    if (Refusal r = refuse(workdir, g); !r.why.empty())
        return {{}, refusal_sentence(workdir, r), {}, !r.inside_config};
    if (const std::string real = resolver.resolve(workdir); real != workdir)
        if (Refusal r = refuse(real, g); !r.why.empty())
            return {{}, refusal_sentence(real, r) + " (" + workdir + " leads there)", {}, !r.inside_config};
    if (const std::string* root = root_of(workdir, g)) return in_root(workdir, *root, g);
    // The directories a workspace may be, nearest first: the walk stops at the first that may not.
    std::vector<fs::path> up;
    for (fs::path p = workdir;; p = p.parent_path()) {
        if (refused(p.string())) break;
        up.push_back(p);
        if (p == p.parent_path()) break;
    }
    for (const auto& p : up)
        if (present(p / ".git")) return {p.string(), {}, {}};
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
                if (present(p / m)) return {p.string(), {}, {}};
    if (in_home)
        return {{},
                workdir + " is a directory of the home outside any project and outside the policy's work roots, "
                "so a step that writes has no workspace there; run it in a project (a directory with .git or a "
                "project file such as package.json) or add a work root to the policy: \"workspace\": "
                "{\"roots\": [\"" + tilde(workdir, g) + "\"]}",
                {}, true, workdir};
    return {workdir, {}, {}};
}

namespace {

// "~" or "~/x" in the user database's home (else $HOME's); an absolute path as it is; else "".
std::string expand_root(const std::string& r, const Guarded& g) {
    if (r == "~" || r.starts_with("~/")) {
        std::string home = user_home();
        if (home.empty() && !g.homes.empty()) home = g.homes.front();
        if (home.empty() || home[0] != '/') return {};
        return normal_path(home + r.substr(1));
    }
    if (r.empty() || r[0] != '/') return {};
    return normal_path(r);
}

}  // namespace

Guarded with_roots(Guarded g, const std::vector<std::string>& roots) {
    PathResolver resolver;
    for (const auto& r : roots) {
        const std::string abs = expand_root(r, g);
        if (abs.empty() || !refusal(abs, g).empty()) continue;
        // The same root by its real name too, when a symlink leads there (`run` works in real paths).
        for (const std::string& p : {abs, normal_path(resolver.resolve(abs))})
            if (refusal(p, g).empty() && std::ranges::find(g.roots, p) == g.roots.end()) g.roots.push_back(p);
    }
    return g;
}

std::vector<std::string> root_problems(const Guarded& g, const std::vector<std::string>& roots) {
    std::vector<std::string> out;
    for (const auto& r : roots) {
        const std::string abs = expand_root(r, g);
        if (abs.empty()) {
            out.push_back("work root \"" + r + "\" is neither absolute nor in the home (~/…)");
            continue;
        }
        if (Refusal why = refuse(abs, g); !why.why.empty())
            out.push_back("work root \"" + r + "\": " + abs + " " + why.why + ", so it cannot hold workspaces");
    }
    return out;
}

}  // namespace toolcage::workspace
