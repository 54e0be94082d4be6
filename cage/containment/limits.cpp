#include "cage/containment/limits.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

namespace toolcage::cage {

std::vector<Rlimit> plan_limits(const CageLimits& l, bool memory_cgroup) {
    std::vector<Rlimit> out = {{RLIMIT_CORE, "RLIMIT_CORE", 0}};
    auto add = [&](int res, const char* name, long v, rlim_t unit) {
        if (v > 0) out.push_back({res, name, static_cast<rlim_t>(v) * unit});
    };
    add(RLIMIT_NPROC, "RLIMIT_NPROC", l.nproc, 1);
    add(RLIMIT_NOFILE, "RLIMIT_NOFILE", l.nofile, 1);
    add(RLIMIT_FSIZE, "RLIMIT_FSIZE", l.fsize_mb, 1024 * 1024);
    add(RLIMIT_CPU, "RLIMIT_CPU", l.cpu_seconds, 1);
    long as_mb = l.as_mb > 0 ? l.as_mb : memory_cgroup ? 0 : 2 * l.memory_mb;
    add(RLIMIT_AS, "RLIMIT_AS", as_mb, 1024 * 1024);
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

namespace {

// Where this process's memory cgroup is: v1's memory hierarchy ("N:memory:/path") or the
// unified one ("0::/path"), from /proc/self/cgroup.
std::vector<std::pair<std::string, bool>> memory_cgroup_dirs() {
    std::vector<std::pair<std::string, bool>> out;  // directory, v2
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
        std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (path.find("..") != std::string::npos) continue;
        if (path == "/") path.clear();
        bool memory = false;
        for (std::size_t i = 0; i <= controllers.size();) {
            std::size_t c = controllers.find(',', i);
            if (controllers.substr(i, c == std::string::npos ? std::string::npos : c - i) == "memory") memory = true;
            if (c == std::string::npos) break;
            i = c + 1;
        }
        if (memory) out.emplace_back("/sys/fs/cgroup/memory" + path, false);
        if (controllers.empty()) {
            out.emplace_back("/sys/fs/cgroup" + path, true);
            out.emplace_back("/sys/fs/cgroup/unified" + path, true);
        }
    }
    return out;
}

}  // namespace

std::string MemoryCgroup::create(long memory_mb, bool shared) {
    if (memory_mb <= 0) return {};
    std::string name;
    if (shared) {
        name = "toolcage-memory-" + std::to_string(memory_mb);
    } else {
        std::random_device rd;
        name = "toolcage-step-" + std::to_string(::getpid()) + "-" + std::to_string(rd() & 0xffffff);
    }
    const std::string bytes = std::to_string(memory_mb * 1024L * 1024L) + "\n";
    std::string tried;
    for (const auto& [base, v2] : memory_cgroup_dirs()) {
        std::string dir = base + "/" + name;
        // A shared one is there already but for the first step; its limit is written again
        // every time (it is what binds).
        if (::mkdir(dir.c_str(), 0755) != 0 && !(shared && errno == EEXIST)) {
            tried += std::string(tried.empty() ? "" : "; ") + "mkdir(\"" + dir + "\"): " + std::strerror(errno);
            continue;
        }
        bool ok = v2 ? write_file(dir + "/memory.max", bytes) : write_file(dir + "/memory.limit_in_bytes", bytes);
        if (ok && v2) (void)write_file(dir + "/memory.swap.max", "0\n");
        if (ok) {
            dir_ = dir;
            join_file_ = dir + (v2 ? "/cgroup.procs" : "/tasks");
            shared_ = shared;
            return {};
        }
        tried += std::string(tried.empty() ? "" : "; ") + dir + ": no memory limit file (" + std::strerror(errno) + ")";
        if (!shared) ::rmdir(dir.c_str());
    }
    return "no memory cgroup (" + (tried.empty() ? std::string("no memory controller for this process") : tried) +
           "): memory is bounded by RLIMIT_AS only";
}

int MemoryCgroup::join(std::string& what) const {
    if (dir_.empty()) return 0;
    if (!write_file(join_file_, "0\n")) {
        what = "write(\"" + join_file_ + "\", \"0\")";
        return errno;
    }
    return 0;
}

void remove_memory_cgroup(const std::string& dir) {
    if (dir.empty() || dir.find("/toolcage-step-") == std::string::npos) return;
    // Processes still inside (a step's last ones being reaped) keep it busy a moment.
    for (int i = 0; i < 50 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i) ::usleep(2000);
}

void MemoryCgroup::remove() {
    if (!shared_) remove_memory_cgroup(dir_);
    dir_.clear();
}

MemoryCgroup::~MemoryCgroup() { remove(); }

}  // namespace toolcage::cage
