#include "cage/step/new_project.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "common/path_text.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

struct OwnedFd {
    int fd = -1;
    explicit OwnedFd(int f) : fd(f) {}
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
    ~OwnedFd() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] void refuse(const std::string& dir, const std::string& why) {
    throw Error("--new-project \"" + dir + "\": " + why);
}

// `path` (absolute, real) opened component by component with O_NOFOLLOW: a symlink swapped in on
// the way is refused, not followed.
int open_no_symlinks(const std::string& path, const std::string& dir) {
    int fd = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) refuse(dir, syscall_error("open(\"/\")", errno));
    size_t i = 1;
    while (i < path.size()) {
        size_t j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        const std::string part = path.substr(i, j - i);
        i = j + 1;
        if (part.empty()) continue;
        int next = ::openat(fd, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int err = errno;
        ::close(fd);
        if (next < 0)
            refuse(dir, syscall_error("openat(\"" + part + "\", O_NOFOLLOW)", err) + " on the way to " + path +
                            " (a symlink or no directory); start the project in the work root itself");
        fd = next;
    }
    return fd;
}

bool empty_directory(int fd) {
    DIR* d = ::fdopendir(fd);
    if (!d) return false;
    bool empty = true;
    while (const dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
            empty = false;
            break;
        }
    ::closedir(d);  // closes fd too
    return empty;
}

}  // namespace

std::string make_new_project(const std::string& dir, const std::string& workdir, const workspace::Guarded& g) {
    const std::string abs = normal_path(dir.starts_with("/") ? dir : workdir + "/" + dir);
    const fs::path p(abs);
    const std::string name = p.filename().string();
    if (name.empty() || name == "." || name == ".." || name.starts_with("."))
        refuse(dir, "a new project is one plain directory name in a work root (not a dot-directory); name it so");
    std::error_code ec;
    const fs::path parent = fs::canonical(p.parent_path(), ec);
    if (ec) refuse(dir, "its parent " + p.parent_path().string() + " cannot be resolved (" + ec.message() + ")");
    if (std::ranges::find(g.roots, parent.string()) == g.roots.end())
        refuse(dir, "its parent " + parent.string() + " is not a work root of the policy, so no project may be "
                    "started there; start it in a work root, or add one to the policy: \"workspace\": {\"roots\": "
                    "[\"~/work\"]}");
    OwnedFd root(open_no_symlinks(parent.string(), dir));
    if (::mkdirat(root.fd, name.c_str(), 0755) != 0 && errno != EEXIST)
        refuse(dir, syscall_error("mkdirat(\"" + parent.string() + "\", \"" + name + "\")", errno));
    int fd = ::openat(root.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        refuse(dir, syscall_error("openat(\"" + name + "\", O_NOFOLLOW)", errno) +
                        ": it is there and no plain directory; choose a new name");
    if (!empty_directory(fd))
        refuse(dir, parent.string() + "/" + name + " is there already and not empty; choose a new name, or cd into "
                    "the project to work in it");
    return parent.string() + "/" + name;
}

}  // namespace toolcage::cage
