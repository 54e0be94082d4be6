#include "cage/integrity/tree_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/error.h"

namespace toolcage::cage::tree {

namespace {

constexpr int kMaxDepth = 64;


std::vector<std::string> names_in(int dir) {
    std::vector<std::string> out;
    int own = ::openat(dir, ".", kDirFlags);
    if (own < 0) return out;
    DIR* d = ::fdopendir(own);
    if (!d) {
        ::close(own);
        return out;
    }
    while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        out.emplace_back(e->d_name);
    }
    ::closedir(d);
    return out;
}

bool write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

std::string copy_at(int from_dir, const std::string& from, int to_dir, const std::string& to, int depth) {
    if (depth > kMaxDepth) return "copy of " + from + ": nested more than " + std::to_string(kMaxDepth) + " deep";
    struct stat st {};
    if (::fstatat(from_dir, from.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return syscall_error("fstatat(\"" + from + "\", AT_SYMLINK_NOFOLLOW)", errno);
    if (S_ISLNK(st.st_mode)) {
        std::string target;
        if (!read_link(from_dir, from, target)) return syscall_error("readlinkat(\"" + from + "\")", errno);
        if (::symlinkat(target.c_str(), to_dir, to.c_str()) != 0)
            return syscall_error("symlinkat(\"" + to + "\")", errno);
        return {};
    }
    if (S_ISDIR(st.st_mode)) {
        if (::mkdirat(to_dir, to.c_str(), 0700) != 0) return syscall_error("mkdirat(\"" + to + "\")", errno);
        Fd src(::openat(from_dir, from.c_str(), kDirFlags));
        Fd dst(::openat(to_dir, to.c_str(), kDirFlags));
        if (src.fd < 0) return syscall_error("openat(\"" + from + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
        if (dst.fd < 0) return syscall_error("openat(\"" + to + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
        for (const auto& n : names_in(src.fd))
            if (std::string e = copy_at(src.fd, n, dst.fd, n, depth + 1); !e.empty()) return e;
        if (::fchmod(dst.fd, st.st_mode & 07777) != 0) return syscall_error("fchmod(\"" + to + "\")", errno);
        return {};
    }
    if (!S_ISREG(st.st_mode)) return from + " is a special file (not copied)";
    Fd src(::openat(from_dir, from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (src.fd < 0) return syscall_error("openat(\"" + from + "\", O_RDONLY|O_NOFOLLOW)", errno);
    Fd dst(::openat(to_dir, to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (dst.fd < 0) return syscall_error("openat(\"" + to + "\", O_CREAT|O_EXCL)", errno);
    char buf[65536];
    while (true) {
        ssize_t n = ::read(src.fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return syscall_error("read(\"" + from + "\")", errno);
        }
        if (n == 0) break;
        if (!write_all(dst.fd, buf, static_cast<std::size_t>(n))) return syscall_error("write(\"" + to + "\")", errno);
    }
    if (::fchmod(dst.fd, st.st_mode & 07777) != 0) return syscall_error("fchmod(\"" + to + "\")", errno);
    if (::fsync(dst.fd) != 0) return syscall_error("fsync(\"" + to + "\")", errno);
    return {};
}

std::string remove_at(int dir, const std::string& name, int depth) {
    if (::unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT) return {};
    if (errno != EISDIR && errno != EPERM) return syscall_error("unlinkat(\"" + name + "\")", errno);
    if (depth > kMaxDepth) return "removal of " + name + ": nested more than " + std::to_string(kMaxDepth) + " deep";
    {
        Fd d(::openat(dir, name.c_str(), kDirFlags));
        if (d.fd < 0) return syscall_error("openat(\"" + name + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
        // A directory the step made unwritable is emptied all the same.
        struct stat st {};
        if (::fstat(d.fd, &st) == 0 && (st.st_mode & 0700) != 0700) (void)::fchmod(d.fd, st.st_mode | 0700);
        for (const auto& n : names_in(d.fd))
            if (std::string e = remove_at(d.fd, n, depth + 1); !e.empty()) return e;
    }
    if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
        return syscall_error("unlinkat(\"" + name + "\", AT_REMOVEDIR)", errno);
    return {};
}

}  // namespace

bool relative_inside(const std::string& rel) {
    if (rel.empty() || rel[0] == '/' || rel.find('\0') != std::string::npos) return false;
    std::size_t i = 0;
    while (i <= rel.size()) {
        std::size_t e = rel.find('/', i);
        if (e == std::string::npos) e = rel.size();
        std::string_view part(rel.data() + i, e - i);
        if (part.empty() || part == "." || part == "..") return false;
        i = e + 1;
    }
    return true;
}

std::pair<std::string, std::string> split(const std::string& rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string::npos) return {"", rel};
    return {rel.substr(0, slash), rel.substr(slash + 1)};
}

int open_dir(int base, const std::string& rel, bool create, mode_t mode) {
    if (rel.empty()) return ::openat(base, ".", kDirFlags);
    int cur = -1;
    std::size_t i = 0;
    while (i < rel.size()) {
        std::size_t slash = rel.find('/', i);
        if (slash == std::string::npos) slash = rel.size();
        const std::string part = rel.substr(i, slash - i);
        i = slash + 1;
        int at = cur >= 0 ? cur : base;
        int next = ::openat(at, part.c_str(), kDirFlags);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(at, part.c_str(), mode) != 0 && errno != EEXIST) {
                int err = errno;
                if (cur >= 0) ::close(cur);
                errno = err;
                return -1;
            }
            next = ::openat(at, part.c_str(), kDirFlags);
        }
        int err = errno;
        if (cur >= 0) ::close(cur);
        if (next < 0) {
            errno = err;
            return -1;
        }
        cur = next;
    }
    return cur;
}

std::string temp_name(std::string_view prefix) {
    unsigned char b[12];
    std::size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(syscall_error("getrandom()", errno));
        }
        got += static_cast<std::size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string name(prefix);
    for (unsigned char c : b) {
        name += hex[c >> 4];
        name += hex[c & 15];
    }
    return name;
}

std::string copy(int from_dir, const std::string& from, int to_dir, const std::string& to) {
    std::string e = copy_at(from_dir, from, to_dir, to, 0);
    if (!e.empty()) (void)remove_at(to_dir, to, 0);  // nothing half-copied is left
    return e;
}

std::string remove(int dir, const std::string& name) { return remove_at(dir, name, 0); }

std::string move(int from_dir, const std::string& from, int to_dir, const std::string& to) {
    if (::renameat(from_dir, from.c_str(), to_dir, to.c_str()) == 0) return {};
    if (errno != EXDEV) return syscall_error("renameat(\"" + from + "\", \"" + to + "\")", errno);
    if (std::string e = copy(from_dir, from, to_dir, to); !e.empty()) return e;
    return remove(from_dir, from);
}

bool read_file(int dir, const std::string& name, std::string& out, std::size_t limit, bool& more) {
    more = false;
    Fd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.fd < 0) return false;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd.fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) return true;
        std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(n), limit - out.size());
        out.append(buf, take);
        if (take < static_cast<std::size_t>(n)) {
            more = true;
            return true;
        }
    }
}

std::string write_new(int dir, const std::string& name, const std::string& data, mode_t mode) {
    Fd fd(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.fd < 0) return syscall_error("openat(\"" + name + "\", O_CREAT|O_EXCL)", errno);
    if (!write_all(fd.fd, data.data(), data.size())) return syscall_error("write(\"" + name + "\")", errno);
    if (::fchmod(fd.fd, mode & 07777) != 0) return syscall_error("fchmod(\"" + name + "\")", errno);
    if (::fsync(fd.fd) != 0) return syscall_error("fsync(\"" + name + "\")", errno);
    return {};
}

bool read_link(int dir, const std::string& name, std::string& out) {
    std::vector<char> buf(256);
    while (true) {
        ssize_t n = ::readlinkat(dir, name.c_str(), buf.data(), buf.size());
        if (n < 0) return false;
        if (static_cast<std::size_t>(n) < buf.size()) {
            out.assign(buf.data(), static_cast<std::size_t>(n));
            return true;
        }
        if (buf.size() > 65536) {
            errno = ENAMETOOLONG;
            return false;
        }
        buf.resize(buf.size() * 4);
    }
}

}  // namespace toolcage::cage::tree
