#include "common/user_home.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/error.h"

namespace toolcage {

namespace {

std::string uid_text() { return std::to_string(::getuid()); }

std::string mode_text(mode_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
    return buf;
}

// The uid an owner outside this user namespace shows as, when this process runs in a user
// namespace that does not map the host's root (a container's, or `unshare --map-root-user`):
// there the host's root-owned directories (/, /tmp, /home) show as the overflow uid and count as
// root's. -1 in the initial namespace.
long unmapped_root_uid() {
    static const long uid = [] {
        FILE* f = std::fopen("/proc/self/uid_map", "re");
        if (!f) return -1L;
        unsigned long inside = 0, outside = 0, count = 0;
        bool maps_root = false;
        while (std::fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
            if (outside == 0 && count > 0) maps_root = true;
        std::fclose(f);
        if (maps_root) return -1L;
        long overflow = 65534;
        if (FILE* o = std::fopen("/proc/sys/kernel/overflowuid", "re")) {
            if (std::fscanf(o, "%ld", &overflow) != 1) overflow = 65534;
            std::fclose(o);
        }
        return overflow;
    }();
    return uid;
}

bool root_owned(uid_t owner) { return owner == 0 || static_cast<long>(owner) == unmapped_root_uid(); }

}  // namespace

const std::string& user_home() {
    static const std::string home = [] {
        const passwd* pw = ::getpwuid(::getuid());
        std::string h = pw && pw->pw_dir ? pw->pw_dir : "";
        while (h.size() > 1 && h.back() == '/') h.pop_back();
        return h.starts_with("/") ? h : std::string();
    }();
    return home;
}

std::string home_state_dir() {
    const std::string& h = user_home();
    if (h.empty()) return {};
    return (h == "/" ? "" : h) + "/.local/state/toolcage";
}

namespace {

std::string home_fallback_state_dir() { return "/tmp/toolcage-state-" + uid_text(); }

constexpr const char* kTestStateMarker = ".toolcage-test-state";

bool normal_absolute(const std::string& p) {
    if (p.size() < 2 || p[0] != '/' || p.back() == '/') return false;
    for (std::size_t i = 1; i <= p.size();) {
        std::size_t j = p.find('/', i);
        if (j == std::string::npos) j = p.size();
        const std::string part = p.substr(i, j - i);
        if (part.empty() || part == "." || part == "..") return false;
        i = j + 1;
    }
    return true;
}

// A test suite runs toolcage thousands of times with fixtures; their decisions, journals and
// relay logs must not land in the user's own state. The suite names a directory of its own in
// $TOOLCAGE_STATE_DIR (tests/CMakeLists.txt: under the build tree, made by the suite's first
// test). It is taken only when
//   - it passes private_dir_problem: the user's, mode 0700, no symlink on the way, every
//     ancestor root's or the user's and writable by no one else: no other user planted it;
//   - it holds .toolcage-test-state, a regular file of the user's, mode 0600: a variable set by
//     mistake (or left in a shell) does not move the state to a directory that happens to exist.
// Why that is enough against a hijacked agent hiding its decisions from the user's log: the
// variable has to be in the environment of the hook's process, which the agent harness starts,
// or of the agent's shell that runs `toolcage run`; whoever sets that environment already runs
// code in toolcage (LD_PRELOAD, PATH), so the variable gives no new power. A directory a step made
// (in its workspace, its caches) cannot serve: it is one of private_state_dirs, which no step is
// granted, so a run whose step could write it is refused. The user's own state directories stay
// in private_state_dirs (never granted) while the suite's is in effect, and `toolcage doctor`
// names the directory in effect and why a set variable was ignored.
std::string test_state_problem(const char* v) {
    if (!v || !*v) return "";
    const std::string dir = v;
    // Compared by name with the paths a step is granted: written as they are (no "//", ".", "..",
    // no trailing "/").
    if (!normal_absolute(dir)) return "\"" + dir + "\": not an absolute path without \"//\", \".\" or \"..\"";
    if (std::string p = private_dir_problem(dir); !p.empty()) return p;
    const std::string marker = dir + "/" + kTestStateMarker;
    struct stat st {};
    if (::lstat(marker.c_str(), &st) != 0) return syscall_error("lstat(\"" + marker + "\")", errno);
    if (!S_ISREG(st.st_mode)) return marker + ": not a regular file";
    if (st.st_uid != ::getuid())
        return marker + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " + uid_text();
    if ((st.st_mode & 07777) != 0600) return marker + ": mode " + mode_text(st.st_mode) + ", not 0600";
    return "";
}

}  // namespace

const std::string& test_state_dir() {
    static const std::string dir = [] {
        const char* v = std::getenv("TOOLCAGE_STATE_DIR");
        return v && *v && test_state_problem(v).empty() ? std::string(v) : std::string();
    }();
    return dir;
}

std::string refused_state_variable() {
    const char* v = std::getenv("TOOLCAGE_STATE_DIR");
    std::string p = test_state_problem(v);
    return p.empty() ? p
                     : std::string("TOOLCAGE_STATE_DIR=") + v + " is ignored (" + p +
                           "): it names a test suite's state directory only, which holds " + kTestStateMarker +
                           " (the user's, mode 0600)";
}

std::string primary_state_dir() {
    if (const std::string& t = test_state_dir(); !t.empty()) return t;
    return home_state_dir();
}

std::string fallback_state_dir() {
    if (const std::string& t = test_state_dir(); !t.empty()) return t + "/fallback";
    return home_fallback_state_dir();
}

std::string user_policy_dir() {
    // A test suite installs its policies into its own state, never the user's.
    if (const std::string& t = test_state_dir(); !t.empty()) return t + "/profiles";
    const std::string& h = user_home();
    if (h.empty()) return {};
    return (h == "/" ? "" : h) + "/.config/toolcage/profiles";
}

std::vector<std::string> state_dir_candidates() {
    std::vector<std::string> out;
    if (std::string p = primary_state_dir(); !p.empty()) out.push_back(p);
    out.push_back(fallback_state_dir());
    return out;
}

std::vector<std::string> private_state_dirs() {
    std::vector<std::string> out = state_dir_candidates();
    if (!test_state_dir().empty()) {
        if (std::string p = home_state_dir(); !p.empty()) out.push_back(p);
        out.push_back(home_fallback_state_dir());
    }
    return out;
}

bool lies_under(const std::string& path, const std::string& dir) {
    if (dir.empty() || path.size() <= dir.size() + 1 || path.compare(0, dir.size(), dir) != 0 ||
        path[dir.size()] != '/')
        return false;
    // Each component after `dir`: not empty, not "." nor "..".
    std::size_t i = dir.size() + 1;
    while (i <= path.size()) {
        std::size_t j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        std::string part = path.substr(i, j - i);
        if (part.empty() || part == "." || part == "..") return false;
        i = j + 1;
    }
    return true;
}

std::string make_private_dirs(const std::string& dir) {
    if (dir.empty() || dir[0] != '/') return "\"" + dir + "\" is not an absolute path";
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0) return "";
    std::size_t slash = dir.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_private_dirs(dir.substr(0, slash));
        if (!err.empty()) return err;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return syscall_error("mkdir(\"" + dir + "\", 0700)", errno);
    return "";
}

std::string private_dir_problem(const std::string& dir) {
    if (dir.empty() || dir[0] != '/') return "\"" + dir + "\": not an absolute path";
    const uid_t me = ::getuid();
    std::string at;
    std::size_t i = 1;
    for (;;) {
        std::size_t j = dir.find('/', i);
        if (j == std::string::npos) j = dir.size();
        at = j == 0 ? "/" : dir.substr(0, j);
        if (at.empty()) at = "/";
        const bool last = j >= dir.size();
        struct stat st {};
        if (::lstat(at.c_str(), &st) != 0) return syscall_error("lstat(\"" + at + "\")", errno);
        if (S_ISLNK(st.st_mode)) return at + ": a symlink (toolcage's own directories never go through one)";
        if (!S_ISDIR(st.st_mode)) return at + ": not a directory";
        if (last) {
            if (st.st_uid != me)
                return at + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                       std::to_string(me) + " (the user toolcage runs as)";
            if (st.st_mode & 077)
                return at + ": mode " + mode_text(st.st_mode) + ", not 0700 (group or others have rights on it)";
            return "";
        }
        if (st.st_uid != me && !root_owned(st.st_uid))
            return at + ": owned by uid " + std::to_string(st.st_uid) + " (neither root nor the user)";
        const bool sticky_root = (st.st_mode & S_ISVTX) && root_owned(st.st_uid);
        if ((st.st_mode & 022) && !sticky_root)
            return at + ": mode " + mode_text(st.st_mode) + ", writable by group or others";
        i = j + 1;
    }
}

std::string state_dir(bool make) {
    for (const std::string& d : state_dir_candidates()) {
        if (make && d == home_state_dir()) {
            // The home must exist: a state directory is never made where the home is missing.
            struct stat st {};
            if (::stat(user_home().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
            if (!make_private_dirs(d).empty()) continue;
        } else if (make) {
            if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) continue;
        }
        if (private_dir_problem(d).empty()) return d;
    }
    return {};
}

}  // namespace toolcage
