#include "common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace toolcage {

RegularFile read_regular_file(const std::string& path, std::size_t max_bytes) {
    RegularFile f;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        f.problem = RegularFile::Problem::cannot_open;
        f.err = errno;
        return f;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        f.problem = RegularFile::Problem::cannot_stat;
        f.err = errno;
        return f;
    }
    f.mode = st.st_mode;
    f.size = static_cast<std::uintmax_t>(st.st_size);
    if (!S_ISREG(st.st_mode)) {
        f.problem = RegularFile::Problem::not_regular;
        return f;
    }
    if (f.size > max_bytes) {
        f.problem = RegularFile::Problem::too_large;
        return f;
    }
    // Room for the size fstat gave and one byte more, grown up to one past the bound: a file
    // that grew while it was read is read as it is now, or refused when it is over the bound.
    std::string text(static_cast<std::size_t>(f.size) + 1, '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == text.size()) {
            if (text.size() > max_bytes) break;
            text.resize(std::min(text.size() * 2, max_bytes + 1));
        }
        ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            f.problem = RegularFile::Problem::cannot_read;
            f.err = errno;
            return f;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > max_bytes) {
        f.problem = RegularFile::Problem::grew;
        return f;
    }
    text.resize(got);
    f.text = std::move(text);
    return f;
}

const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

}  // namespace toolcage
