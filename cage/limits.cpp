#include "cage/limits.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace toolcage::cage {

std::vector<Rlimit> plan_limits(const CageLimits& l) {
    std::vector<Rlimit> out = {{RLIMIT_CORE, "RLIMIT_CORE", 0}};
    auto add = [&](int res, const char* name, long v, rlim_t unit) {
        if (v > 0) out.push_back({res, name, static_cast<rlim_t>(v) * unit});
    };
    add(RLIMIT_NPROC, "RLIMIT_NPROC", l.nproc, 1);
    add(RLIMIT_NOFILE, "RLIMIT_NOFILE", l.nofile, 1);
    add(RLIMIT_FSIZE, "RLIMIT_FSIZE", l.fsize_mb, 1024 * 1024);
    add(RLIMIT_CPU, "RLIMIT_CPU", l.cpu_seconds, 1);
    add(RLIMIT_AS, "RLIMIT_AS", l.as_mb, 1024 * 1024);
    return out;
}

int apply_limits(const std::vector<Rlimit>& limits, std::string& what) {
    for (const auto& l : limits) {
        rlimit cur{};
        if (::getrlimit(l.resource, &cur) != 0) {
            what = std::string("getrlimit(") + l.name + ")";
            return errno;
        }
        rlim_t v = l.value;
        if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v) v = cur.rlim_max;
        rlimit next{v, v};
        if (::setrlimit(l.resource, &next) != 0) {
            what = std::string("setrlimit(") + l.name + ", {" + std::to_string(v) + ", " +
                   std::to_string(v) + "})";
            return errno;
        }
    }
    return 0;
}

namespace {

// False with errno set when the file cannot be opened or takes less than the whole text.
bool write_file(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = ::write(fd, text.data(), text.size());
    int err = n < 0 ? errno : EIO;
    ::close(fd);
    if (n == static_cast<ssize_t>(text.size())) return true;
    errno = err;
    return false;
}

}  // namespace

std::string PidsCgroup::create(long max_pids) {
    if (::geteuid() != 0) return {};
    if (max_pids <= 0) return {};
    // One cgroup per limit value, made once and kept: mkdir and rmdir of a cgroup cost
    // milliseconds each, joining an existing one does not. Steps with the same limit share it.
    const std::string name = "toolcage-nproc-" + std::to_string(max_pids);
    const std::string value = std::to_string(max_pids) + "\n";
    std::string tried;
    for (const char* root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        std::string dir = std::string(root) + "/" + name;
        // The limit is written again every time (it is what binds); a missing pids.max means
        // the cgroup is not there yet, or this hierarchy has no pids controller.
        bool fresh = false;
        bool ok = write_file(dir + "/pids.max", value);
        if (!ok && errno == ENOENT) {
            if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
                tried += std::string(tried.empty() ? "" : "; ") + "mkdir(\"" + dir +
                         "\"): " + std::strerror(errno);
                continue;
            }
            fresh = true;
            ok = write_file(dir + "/pids.max", value);
        }
        if (ok) {
            dir_ = dir;
            // The step's process is single-threaded when it joins (just forked). Under cgroup
            // v1, moving the calling thread alone ("0" into tasks) moves the whole process and
            // skips the kernel's system-wide threadgroup lock, whose first writer after a quiet
            // spell waits out an RCU grace period: 10-30 ms, against some 30 us. cgroup v2
            // moves processes only through cgroup.procs.
            struct statfs fs {};
            bool v2 = ::statfs(dir.c_str(), &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
            join_file_ = dir + (v2 ? "/cgroup.procs" : "/tasks");
            return {};
        }
        tried +=
            std::string(tried.empty() ? "" : "; ") + dir + "/pids.max: " + std::strerror(errno);
        if (fresh) ::rmdir(dir.c_str());
    }
    return "no pids cgroup (" + tried + "): the process limit does not bind uid 0";
}

int PidsCgroup::join(std::string& what) const {
    if (dir_.empty()) return 0;
    if (!write_file(join_file_, "0\n")) {
        what = "write(\"" + join_file_ + "\", \"0\")";
        return errno;
    }
    return 0;
}

PidsCgroup::~PidsCgroup() = default;

}  // namespace toolcage::cage
