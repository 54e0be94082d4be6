#include "tests/other_user.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace

bool can_switch_user() { return ::geteuid() == 0; }

uid_t case_uid(bool as_nobody) { return as_nobody && can_switch_user() ? 65534 : ::geteuid(); }

bool become_case_user(bool as_nobody) {
    if (!as_nobody || !can_switch_user()) return true;
    return ::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0;
}

std::string state_dir_for(uid_t uid) {
    const passwd* pw = ::getpwuid(uid);
    std::string home = pw && pw->pw_dir ? pw->pw_dir : "";
    struct stat st {};
    if (!home.empty() && ::stat(home.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return (home == "/" ? "" : home) + "/.local/state/toolcage";
    return "/tmp/toolcage-state-" + std::to_string(uid);
}

std::vector<std::string> as_nobody_prefix() {
    if (can_switch_user()) return {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
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

std::string reachable(const std::string& built) {
    static std::mutex lock;
    static Scratch scratch;
    std::lock_guard<std::mutex> hold(lock);
    if (auto it = scratch.copies.find(built); it != scratch.copies.end()) return it->second;
    fs::path from(built);
    fs::path to = scratch.dir / from.filename();
    copy_in(from, to);
    if (from.filename() == "toolcage") {
        copy_in(from.parent_path() / "toolcage-relay", scratch.dir / "toolcage-relay");
        fs::create_directories(scratch.dir / "share");
        copy_in(from.parent_path() / "share/toolcage", scratch.dir / "share/toolcage");
        open_up(scratch.dir / "share");
    }
    return scratch.copies[built] = to.string();
}

}  // namespace testsupport
