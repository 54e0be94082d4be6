#include "cage/settings/step_tmpdir.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "common/error.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
// A directory whose entries once took more than a block keeps the size: not worth keeping.
constexpr off_t kMaxSpareSize = 4096;

struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

std::string spare_name(int n) {
    return "/tmp/toolcage-spare-" + std::to_string(::geteuid()) + "-" + std::to_string(n);
}

// "/tmp/toolcage-" and six random letters or digits, as mkdtemp makes them.
bool random_name(std::string& out) {
    static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char bytes[6];
    if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes))
        return false;
    out = "/tmp/toolcage-";
    for (unsigned char b : bytes) out += kChars[b % (sizeof kChars - 1)];
    return true;
}

// The entries of the directory `fd` (at most `limit`), read from its start with getdents64
// on the descriptor itself. False when it cannot be listed.
bool list_entries(int fd, std::vector<std::string>& names, std::size_t limit) {
    if (::lseek(fd, 0, SEEK_SET) != 0) return false;
    alignas(8) char buf[8192];
    while (names.size() < limit) {
        long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n < 0) return false;
        if (n == 0) break;
        for (long off = 0; off < n && names.size() < limit;) {
            // linux_dirent64: ino (8), off (8), reclen (2), type (1), name
            unsigned short reclen;
            std::memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char* name = buf + off + 19;
            if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) names.emplace_back(name);
            off += reclen;
        }
    }
    return true;
}

bool is_empty(int fd) {
    std::vector<std::string> names;
    return list_entries(fd, names, 1) && names.empty();
}

// A directory this user owns, 0700, small (`st` from fstat) and empty (listed unless
// `known_empty`): what a step may be given.
bool fit_for_a_step(int fd, const struct stat& st, bool known_empty = false) {
    return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 07777) == 0700 &&
           st.st_size <= kMaxSpareSize && (known_empty || is_empty(fd));
}

}  // namespace

bool StepTmpdir::read_attributes(int fd, Attributes& a, struct stat& st) {
    if (::fstat(fd, &st) != 0) return false;
    a.dev = st.st_dev;
    a.ino = st.st_ino;
    a.mode = st.st_mode & 07777;
    int flags = 0;
    a.flags = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? flags : -1;
    char names[4096];
    ssize_t n = ::flistxattr(fd, names, sizeof names);
    if (n < 0 && errno != ENOTSUP) return false;
    a.xattrs.assign(names, n > 0 ? static_cast<std::size_t>(n) : 0);
    a.readable = true;
    return true;
}

const std::string& StepTmpdir::make() {
    // A spare first: renamed to a name of this step's own (RENAME_NOREPLACE), which also makes
    // it this step's alone when steps start at the same time.
    std::string name;
    for (int n = 0; n < kSpareTmpdirs && path_.empty(); ++n) {
        const std::string spare = spare_name(n);
        int err = EEXIST;
        for (int tries = 0; tries < 3 && err == EEXIST; ++tries) {
            if (!random_name(name)) break;
            err = ::renameat2(AT_FDCWD, spare.c_str(), AT_FDCWD, name.c_str(), RENAME_NOREPLACE) == 0
                      ? 0
                      : errno;
        }
        if (err == EINVAL || err == ENOSYS) break;  // no RENAME_NOREPLACE here: no spares
        if (err != 0) continue;                     // none there (ENOENT), or not ours to move
        Fd fd(::open(name.c_str(), kDirFlags));
        struct stat st {};
        if (fd.fd >= 0 && read_attributes(fd.fd, start_, st) && fit_for_a_step(fd.fd, st)) {
            path_ = name;
            break;
        }
        // Not a directory as a step leaves it: removed when it is this user's (a link itself,
        // never its target), else left as it is under the name it has now.
        start_ = {};
        struct stat lst {};
        if (::lstat(name.c_str(), &lst) == 0 && lst.st_uid == ::geteuid()) {
            std::error_code ec;
            fs::remove_all(name, ec);
        }
    }
    if (path_.empty()) {
        char tmpl[] = "/tmp/toolcage-XXXXXX";
        if (!::mkdtemp(tmpl))
            throw Error(syscall_error("mkdtemp(\"/tmp/toolcage-XXXXXX\")", errno));
        path_ = tmpl;
        Fd fd(::open(path_.c_str(), kDirFlags));
        struct stat st {};
        if (fd.fd < 0 || !read_attributes(fd.fd, start_, st)) start_ = {};
    }
    return path_;
}

bool StepTmpdir::release() {
    if (path_.empty()) return false;
    const std::string path = std::exchange(path_, std::string());
    bool keep = false;
    {
        Fd fd(::open(path.c_str(), kDirFlags));
        if (fd.fd >= 0 && start_.readable) {
            // What the step left: removed entry by entry (remove_all never follows a symlink).
            std::vector<std::string> names;
            bool listed = list_entries(fd.fd, names, static_cast<std::size_t>(-1));
            for (const auto& n : names) {
                std::error_code ec;
                fs::remove_all(path + "/" + n, ec);
            }
            struct stat st {};
            Attributes now;
            keep = listed && read_attributes(fd.fd, now, st) && now.dev == start_.dev &&
                   now.ino == start_.ino && now.mode == start_.mode && now.flags == start_.flags &&
                   now.xattrs == start_.xattrs && fit_for_a_step(fd.fd, st, names.empty());
        }
    }
    for (int n = 0; keep && n < kSpareTmpdirs; ++n)
        if (::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, spare_name(n).c_str(), RENAME_NOREPLACE) == 0)
            return true;
    if (::rmdir(path.c_str()) == 0) return false;
    std::error_code ec;
    fs::remove_all(path, ec);
    return false;
}

StepTmpdir::~StepTmpdir() { release(); }

}  // namespace toolcage::cage
