#include "tests/other_user.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

namespace fs = std::filesystem;

namespace testsupport {

namespace {

// The scratch directory, removed by the process that made it (a forked child leaves it).
struct Scratch {
    fs::path dir;
    pid_t owner = ::getpid();
    std::map<std::string, std::string> copies;
    Scratch() {
        char tmpl[] = "/tmp/toolcage-test-bin-XXXXXX";
        if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp under /tmp failed");
        dir = tmpl;
        ::chmod(tmpl, 0755);
    }
    ~Scratch() {
        if (::getpid() != owner) return;
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// Every directory 0755, every file 0644 or (when its owner may run it) 0755: not the user's
// umask, which may be 077.
void open_up(const fs::path& p) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        ::chmod(p.c_str(), 0755);
        for (const auto& e : fs::recursive_directory_iterator(p, ec)) open_up(e.path());
        return;
    }
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return;
    ::chmod(p.c_str(), (st.st_mode & S_IXUSR) ? 0755 : 0644);
}

void copy_in(const fs::path& from, const fs::path& to) {
    std::error_code ec;
    if (!fs::exists(from, ec)) return;
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    open_up(to);
}

Scratch& scratch() {
    static Scratch s;
    return s;
}

std::mutex& scratch_lock() {
    static std::mutex m;
    return m;
}

// Under CTest, nobody's own test state directory (common/user_home.cpp): in the scratch directory
// (0755, root's, under /tmp), nobody's, 0700, with its marker; removed with the scratch. Else "".
// Made by the process that owns the scratch, before it forks a case.
std::string nobody_state_dir() {
    if (suite_state_dir().empty() || !can_switch_user()) return "";
    std::lock_guard<std::mutex> hold(scratch_lock());
    const fs::path dir = scratch().dir / "nobody-state";
    const fs::path marker = dir / ".toolcage-test-state";
    std::error_code ec;
    if (!fs::exists(marker, ec)) {
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) throw std::runtime_error("mkdir " + dir.string());
        if (std::FILE* f = std::fopen(marker.c_str(), "w")) std::fclose(f);
        if (::chmod(dir.c_str(), 0700) != 0 || ::chmod(marker.c_str(), 0600) != 0 ||
            ::chown(marker.c_str(), 65534, 65534) != 0 || ::chown(dir.c_str(), 65534, 65534) != 0)
            throw std::runtime_error("cannot give " + dir.string() + " to nobody");
    }
    return dir.string();
}

}  // namespace

bool can_switch_user() { return ::geteuid() == 0; }

uid_t case_uid(bool as_nobody) { return as_nobody && can_switch_user() ? 65534 : ::geteuid(); }

bool become_case_user(bool as_nobody) {
    if (!as_nobody || !can_switch_user()) return true;
    if (const std::string d = nobody_state_dir(); !d.empty()) ::setenv("TOOLCAGE_STATE_DIR", d.c_str(), 1);
    return ::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0;
}

std::string suite_state_dir() {
    const char* v = std::getenv("TOOLCAGE_STATE_DIR");
    return v && v[0] == '/' ? v : "";
}

void keep_suite_state(std::vector<std::string>& env) {
    const std::string dir = suite_state_dir();
    if (dir.empty()) return;
    for (const auto& e : env)
        if (e.starts_with("TOOLCAGE_STATE_DIR=")) return;
    env.push_back("TOOLCAGE_STATE_DIR=" + dir);
}

std::string suite_state_word(bool as_nobody) {
    const std::string dir = as_nobody && can_switch_user() ? nobody_state_dir() : suite_state_dir();
    return dir.empty() ? "" : "TOOLCAGE_STATE_DIR='" + dir + "' ";
}

std::string state_dir_for(uid_t uid) {
    if (std::string own = suite_state_dir(); !own.empty() && uid == ::geteuid()) return own;
    if (std::string nobody = nobody_state_dir(); !nobody.empty() && uid == 65534) return nobody;
    const passwd* pw = ::getpwuid(uid);
    std::string home = pw && pw->pw_dir ? pw->pw_dir : "";
    struct stat st {};
    if (!home.empty() && ::stat(home.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return (home == "/" ? "" : home) + "/.local/state/toolcage";
    return "/tmp/toolcage-state-" + std::to_string(uid);
}

std::vector<std::string> as_nobody_prefix() {
    if (can_switch_user()) {
        std::vector<std::string> out = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
        // Under CTest nobody gets a state directory of the suite's too (the environment a case
        // builds names the tests' user's, which toolcage refuses for nobody).
        if (const std::string d = nobody_state_dir(); !d.empty())
            out.insert(out.end(), {"/usr/bin/env", "TOOLCAGE_STATE_DIR=" + d});
        return out;
    }
    static bool warned = false;
    if (!warned) {
        std::fprintf(stderr,
                     "note: not root: the cases \"as nobody\" run as this user (uid %u), since only root can "
                     "switch users\n",
                     static_cast<unsigned>(::getuid()));
        warned = true;
    }
    return {};
}

std::string as_nobody_shell_prefix() {
    std::string out;
    for (const auto& a : as_nobody_prefix()) out += a + " ";
    return out;
}

std::string scratch_parent(const std::string& preferred) {
    fs::path p = fs::path(preferred).lexically_normal();
    for (fs::path at = p;; at = at.parent_path()) {
        struct stat st {};
        if (::stat(at.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) return "/tmp";
        if (at == at.root_path() || at.empty()) break;
    }
    return p.string();
}

std::string reachable(const std::string& built) {
    std::lock_guard<std::mutex> hold(scratch_lock());
    Scratch& s = scratch();
    if (auto it = s.copies.find(built); it != s.copies.end()) return it->second;
    fs::path from(built);
    fs::path to = s.dir / from.filename();
    copy_in(from, to);
    if (from.filename() == "toolcage") {
        copy_in(from.parent_path() / "toolcage-relay", s.dir / "toolcage-relay");
        fs::create_directories(s.dir / "share");
        copy_in(from.parent_path() / "share/toolcage", s.dir / "share/toolcage");
        open_up(s.dir / "share");
    }
    return s.copies[built] = to.string();
}

}  // namespace testsupport
