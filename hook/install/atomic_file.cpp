#include "hook/install/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "common/error.h"

namespace toolcage::install {

namespace {

// Configuration files are small; anything larger is not the file we think it is.
constexpr off_t kMaxConfigBytes = 8 << 20;

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }

  private:
    int fd_;
};

void write_all(int fd, std::string_view data, const std::string& what) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(syscall_error("write(" + what + ")", errno));
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
}

void fsync_dir(const fs::path& dir) {
    Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.get() < 0) throw Error(syscall_error("open(" + dir.string() + ", O_DIRECTORY)", errno));
    if (::fsync(d.get()) != 0) throw Error(syscall_error("fsync(" + dir.string() + ")", errno));
}

fs::path parent_of(const fs::path& p) {
    fs::path dir = p.parent_path();
    return dir.empty() ? fs::path(".") : dir;
}

std::string octal(mode_t mode) {
    char b[8];
    std::snprintf(b, sizeof b, "0%03o", static_cast<unsigned>(mode & 07777));
    return b;
}

std::string local_timestamp() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

}  // namespace

FileState read_file_state(const fs::path& path) {
    FileState s;
    std::error_code ec;
    s.path = fs::weakly_canonical(fs::absolute(path), ec);
    if (ec) s.path = fs::absolute(path);
    struct stat st {};
    if (::stat(s.path.c_str(), &st) != 0) {
        if (errno != ENOENT) throw Error(syscall_error("stat(" + s.path.string() + ")", errno));
        struct stat dst {};
        fs::path dir = parent_of(s.path);
        if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
            throw Error(dir.string() + ": no such directory (needed for " +
                        s.path.filename().string() +
                        "); create it, or point toolcage at the right file");
        s.uid = dst.st_uid;
        s.gid = dst.st_gid;
        return s;
    }
    if (!S_ISREG(st.st_mode))
        throw Error(s.path.string() +
                    ": not a regular file; point toolcage at the agent's config file");
    if (st.st_size > kMaxConfigBytes)
        throw Error(s.path.string() +
                    ": larger than 8 MiB; this is not an agent configuration file");
    Fd fd(::open(s.path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(syscall_error("open(" + s.path.string() + ", O_RDONLY)", errno));
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(syscall_error("read(" + s.path.string() + ")", errno));
        }
        if (n == 0) break;
        s.content.append(buf, static_cast<size_t>(n));
    }
    s.exists = true;
    s.mode = st.st_mode & 07777;
    s.uid = st.st_uid;
    s.gid = st.st_gid;
    return s;
}

void write_atomic(const fs::path& path, std::string_view content, mode_t mode, uid_t uid,
                  gid_t gid) {
    const fs::path dir = parent_of(path);
    std::string tmpl = (dir / ("." + path.filename().string() + ".toolcage-tmp-XXXXXX")).string();
    Fd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
    if (fd.get() < 0) throw Error(syscall_error("mkostemp(" + tmpl + ")", errno));
    const std::string tmp = tmpl;
    try {
        // As root the new file would belong to root; the agent running as its user must still
        // be able to read (and rewrite) its own configuration.
        if (::geteuid() == 0 && ::fchown(fd.get(), uid, gid) != 0)
            throw Error(syscall_error(
                "fchown(" + tmp + ", " + std::to_string(uid) + ", " + std::to_string(gid) + ")",
                errno));
        if (::fchmod(fd.get(), mode) != 0)
            throw Error(syscall_error("fchmod(" + tmp + ", " + octal(mode) + ")", errno));
        write_all(fd.get(), content, tmp);
        if (::fsync(fd.get()) != 0) throw Error(syscall_error("fsync(" + tmp + ")", errno));
        if (::close(fd.release()) != 0) throw Error(syscall_error("close(" + tmp + ")", errno));
        if (::rename(tmp.c_str(), path.c_str()) != 0)
            throw Error(syscall_error("rename(" + tmp + ", " + path.string() + ")", errno));
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
    fsync_dir(dir);
}

void remove_file(const fs::path& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw Error(syscall_error("unlink(" + path.string() + ")", errno));
    fsync_dir(parent_of(path));
}

fs::path backup_file(const FileState& state) {
    const std::string base = state.path.string() + ".toolcage-backup-" + local_timestamp();
    for (int n = 1; n < 100; ++n) {
        std::string name = n == 1 ? base : base + "-" + std::to_string(n);
        Fd fd(::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (fd.get() < 0) {
            if (errno == EEXIST) continue;
            throw Error(syscall_error("open(" + name + ", O_CREAT|O_EXCL)", errno));
        }
        if (::geteuid() == 0 && ::fchown(fd.get(), state.uid, state.gid) != 0)
            throw Error(syscall_error("fchown(" + name + ")", errno));
        if (::fchmod(fd.get(), state.mode) != 0)
            throw Error(syscall_error("fchmod(" + name + ")", errno));
        write_all(fd.get(), state.content, name);
        if (::fsync(fd.get()) != 0) throw Error(syscall_error("fsync(" + name + ")", errno));
        return name;
    }
    throw Error(base + ": 99 backups taken this second already; wait a second and run again");
}

std::vector<fs::path> list_backups(const fs::path& path) {
    std::vector<fs::path> out;
    const std::string prefix = path.filename().string() + ".toolcage-backup-";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent_of(path), ec)) {
        std::string n = e.path().filename().string();
        if (n.starts_with(prefix) && e.is_regular_file(ec)) out.push_back(e.path());
    }
    // Names end in YYYYMMDD-HHMMSS[-N]: sort by the stamp, then by N as a number.
    auto key = [&](const fs::path& p) {
        std::string rest = p.filename().string().substr(prefix.size());
        int n = 1;
        if (rest.size() > 15 && rest[15] == '-') n = std::atoi(rest.c_str() + 16);
        return std::pair{rest.substr(0, 15), n};
    };
    std::sort(out.begin(), out.end(),
              [&](const fs::path& a, const fs::path& b) { return key(a) < key(b); });
    return out;
}

std::string why_not_writable(const FileState& state) {
    const fs::path dir = parent_of(state.path);
    if (state.exists) {
        if ((state.mode & 0222) == 0)
            return state.path.string() + " is read-only (mode " + octal(state.mode) +
                   "); make it writable (chmod u+w " + state.path.string() + ") and run again";
        if (::access(state.path.c_str(), W_OK) != 0)
            return syscall_error("access(" + state.path.string() + ", W_OK)", errno) +
                   "; run as the file's owner, or make it writable";
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & 0222) == 0)
        return dir.string() + " is read-only; make it writable (chmod u+w " + dir.string() +
               ") and run again";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return syscall_error("access(" + dir.string() + ", W_OK|X_OK)", errno) +
               "; toolcage writes a temporary file there and renames it; run as the directory's "
               "owner";
    return "";
}

long long now_micros() {
    struct timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

std::string iso_utc(long long unix_micros) {
    std::time_t secs = static_cast<std::time_t>(unix_micros / 1000000);
    long micros = static_cast<long>(unix_micros % 1000000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out = buf;
    if (micros != 0) {
        char frac[16];
        std::snprintf(frac, sizeof frac, ".%06ld", micros);
        out += frac;
    }
    return out + "Z";
}

}  // namespace toolcage::install
