#include "fleet/unsent.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace toolcage::fleet {

namespace {

struct Locked {
    int fd = -1;
    ~Locked() {
        if (fd >= 0) ::close(fd);  // also releases the lock
    }
};

}  // namespace

std::string unsent_path(const std::string& log_path) { return log_path.empty() ? "" : log_path + ".unsent"; }

std::size_t keep_unsent(const std::string& path, const std::vector<std::string>& events) {
    if (path.empty() || events.empty()) return 0;
    Locked f{::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)};
    if (f.fd < 0) return 0;
    // The lock is held by a taker only while it reads and empties the file, never while it sends.
    while (::flock(f.fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return 0;
    std::string buf;
    std::size_t kept = 0;
    for (const auto& e : events) {
        if (static_cast<std::size_t>(st.st_size) + buf.size() + e.size() + 1 > kMaxUnsentBytes) break;
        buf += e;
        buf += '\n';
        ++kept;
    }
    if (buf.empty()) return 0;
    if (::write(f.fd, buf.data(), buf.size()) != static_cast<ssize_t>(buf.size())) return 0;
    return kept;
}

std::vector<std::string> take_unsent(const std::string& path) {
    std::vector<std::string> out;
    if (path.empty()) return out;
    Locked f{::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW)};
    if (f.fd < 0) return out;
    if (::flock(f.fd, LOCK_EX | LOCK_NB) != 0) return out;  // another process is taking them
    std::string text, chunk(65536, '\0');
    for (;;) {
        ssize_t n = ::read(f.fd, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(chunk.data(), static_cast<std::size_t>(n));
    }
    if (text.empty() || ::ftruncate(f.fd, 0) != 0) return out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        if (nl > start) out.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return out;
}

std::size_t count_unsent(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::size_t n = 0;
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) ++n;
    return n;
}

}  // namespace toolcage::fleet
