#include "cage/integrity/never_writable.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "common/path_resolver.h"
#include "common/path_text.h"
#include "common/user_home.h"
#include "common/workspace_choice.h"

namespace toolcage::cage {

namespace {

// Files a login or interactive shell runs, per home.
constexpr const char* kStartupFiles[] = {
    ".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
    ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".config/fish", ".kshrc", ".mkshrc",
};

struct Narrowing {
    const std::vector<NeverWritable>& kept;
    std::vector<std::string> grants;  // what replaces the grant
    std::vector<std::string> held;    // what it held, for the note

    // `dir` holds a kept path strictly below it: its entries instead of it, the way to each
    // kept path split again.
    void split(const std::string& dir) {
        DIR* d = ::opendir(dir.c_str());
        if (!d) return;  // nothing listed, nothing granted
        while (dirent* e = ::readdir(d)) {
            std::string name = e->d_name;
            if (name == "." || name == "..") continue;
            std::string path = dir == "/" ? "/" + name : dir + "/" + name;
            const NeverWritable* exact = nullptr;
            bool holds = false;
            for (const auto& k : kept) {
                if (k.path == path) exact = &k;
                else if (path_within(k.path, path)) holds = true;
            }
            if (exact) {
                held.push_back(path + " (" + exact->what + ")");
                continue;
            }
            struct stat st {};
            if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
            if (holds && S_ISDIR(st.st_mode)) split(path);
            else grants.push_back(path);
        }
        ::closedir(d);
    }
};

}  // namespace

std::vector<NeverWritable> never_writable_paths() {
    std::vector<NeverWritable> out;
    PathResolver resolver;  // the homes' files share their prefixes
    auto add = [&](const std::string& p, const std::string& what) {
        if (p.empty() || p[0] != '/') return;
        out.push_back({normal_path(p), what});
        std::string real = resolver.resolve(p);
        if (real != normal_path(p)) out.push_back({normal_path(real), what});
    };
    const workspace::Guarded g = workspace::guarded_from_process();
    for (const auto& k : g.keep_out) add(k.path, k.what);
    for (const auto& h : g.homes) {
        for (const char* f : kStartupFiles) add(h + "/" + f, "a shell start-up file");
        add(h + "/.ssh", "ssh keys and settings");
    }
    // The state directory (decision log, journal) of the user database's home, and where
    // $XDG_STATE_HOME moves it.
    if (const std::string d = primary_state_dir(); !d.empty()) add(d, "toolcage's state and journal");
    if (const std::string d = home_state_dir(); !d.empty() && d != primary_state_dir())
        add(d, "toolcage's state and journal");
    if (const char* x = std::getenv("XDG_STATE_HOME"); x && x[0] == '/')
        add(std::string(x) + "/toolcage", "toolcage's state and journal");
    return out;
}

void narrow_write_grants(ExpandedCage& cage, const std::vector<NeverWritable>& kept) {
    std::vector<std::string> write;
    for (const auto& entry : cage.write) {
        const std::string grant = normal_path(entry);
        auto inside = std::find_if(kept.begin(), kept.end(), [&](const NeverWritable& k) { return path_within(grant, k.path); });
        if (inside != kept.end()) {
            cage.notes.push_back("cage.write \"" + entry + "\" is not granted: it lies in " + inside->path + " (" +
                                 inside->what + "), which no step may write");
            continue;
        }
        bool holds = std::any_of(kept.begin(), kept.end(), [&](const NeverWritable& k) { return path_within(k.path, grant); });
        if (!holds) {
            write.push_back(entry);
            continue;
        }
        Narrowing n{kept, {}, {}};
        n.split(grant);
        for (auto& p : n.grants) write.push_back(std::move(p));
        std::string list;
        for (const auto& h : n.held) list += (list.empty() ? "" : ", ") + h;
        if (list.empty()) list = "the start-up files and the like it may hold one day";
        cage.notes.push_back("cage.write \"" + entry + "\" is granted entry by entry, without " + list +
                             ", which no step may write; nothing new can be made directly in " + grant);
    }
    cage.write = std::move(write);
}

std::string broad_grant_warning(const std::string& entry) {
    const std::string e = normal_path(entry);
    if (e == "{home}" || e == "~")
        return "the whole home directory: ssh keys, tokens (~/.npmrc, ~/.gitconfig, cloud credentials), "
               "every agent's settings and every tool's cache (toolcage keeps its own files, the agents' "
               "configuration, shell start-up files and ~/.ssh read-only whatever the policy says)";
    if (e == "/") return "every file the user may write, the home directory and the system alike";
    if (e == "/usr" || e == "/bin" || e == "/sbin" || e == "/lib" || e == "/lib64" || e == "/opt")
        return "the system's programs and libraries (as root, every program the user runs next)";
    if (e == "/etc") return "the system's configuration (as root: users, sudoers, services)";
    if (e == "/home" || e == "/root") return "users' home directories: keys, tokens, shell start-up files";
    if (e == "/var" || e == "/srv") return "services' data and spool directories";
    return {};
}

}  // namespace toolcage::cage
