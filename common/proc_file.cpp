#include "common/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace toolcage {

std::string read_proc_file(pid_t pid, const char* name, std::size_t max) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/%s", static_cast<int>(pid), name);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string out;
    char buf[4096];
    while (out.size() < max) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.clear();
            break;
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

}  // namespace toolcage
