#include "cage/explain/stderr_watch.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

namespace toolcage::cage {

namespace {

constexpr std::size_t kMaxKept = 200;
constexpr std::size_t kMaxLine = 1024;

// Refusals, and what a refusal looks like to a program that does not say so: a host it could
// not resolve or reach, a path it was told does not exist, npm's line naming the path.
bool reports_refusal(std::string_view line) {
    for (std::string_view w :
         {"ermission denied", "EACCES", "peration not permitted", "EPERM", "ead-only file system", "EROFS",
          "resolve host", "EAI_AGAIN", "name resolution", "ame or service not known", "getaddrinfo",
          "etwork is unreachable", "does not exist", "o such file or directory", "npm ERR! path ",
          "npm error path ", "npm ERR! syscall ", "npm error syscall "})
        if (line.find(w) != std::string_view::npos) return true;
    return false;
}

// A reader of our stderr that went away must not end the supervisor: write() then says EPIPE,
// and the SIGPIPE it raises, blocked for the while, is taken back unless it was pending before.
void write_all(int fd, const char* p, std::size_t n) {
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE);
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            break;  // our stderr is gone: the step's output has nowhere to go either
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    if (!was_pending && !sigismember(&old, SIGPIPE)) {
        const timespec now{};
        while (::sigtimedwait(&pipe_only, nullptr, &now) == SIGPIPE) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// A pseudo-terminal that passes what the step writes through unchanged, as wide as ours: the
// step still sees a terminal on its stderr (colours, progress), and we still read its lines.
// Returns the master (read end) and sets `slave`, or -1.
int open_terminal_like_ours(int& slave) {
    int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    char name[128];
    if (::grantpt(master) != 0 || ::unlockpt(master) != 0 || ::ptsname_r(master, name, sizeof name) != 0 ||
        (slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
        ::close(master);
        return -1;
    }
    termios t{};
    if (::tcgetattr(STDERR_FILENO, &t) == 0) {
        t.c_oflag &= ~static_cast<tcflag_t>(OPOST);  // our own terminal turns \n into \r\n
        ::tcsetattr(slave, TCSANOW, &t);
    }
    winsize w{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0) ::ioctl(slave, TIOCSWINSZ, &w);
    return master;
}

// What a line says once a terminal has drawn it: the text after its last carriage return
// (progress redrawn in place), without colour and cursor sequences.
std::string as_drawn(std::string_view line) {
    if (auto cr = line.find_last_of('\r'); cr != std::string_view::npos && cr + 1 < line.size())
        line = line.substr(cr + 1);
    std::string out;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
            continue;
        }
        if (line[i] != '\r') out.push_back(line[i]);
    }
    return out.substr(0, kMaxLine);
}

}  // namespace

StderrWatch::~StderrWatch() {
    close_fd(read_fd_);
    close_fd(write_fd_);
}

int StderrWatch::open() {
    int p[2];
    if (::isatty(STDERR_FILENO)) {
        // A person reads it as it comes: the step keeps a terminal, and our stdout stays its own
        // (a full-screen program draws on it directly).
        p[0] = open_terminal_like_ours(p[1]);
        if (p[0] < 0) return -1;
    } else {
        struct stat out {
        }, err{};
        merged_ = ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 &&
                  out.st_dev == err.st_dev && out.st_ino == err.st_ino;
        if (::pipe2(p, O_CLOEXEC) != 0) return -1;
    }
    read_fd_ = p[0];
    write_fd_ = p[1];
    return write_fd_;
}

void StderrWatch::start() {
    if (read_fd_ < 0) return;
    close_fd(write_fd_);
    if (int fl = ::fcntl(read_fd_, F_GETFL); fl < 0 || ::fcntl(read_fd_, F_SETFL, fl | O_NONBLOCK) != 0) {
        // Never read in blocking mode (the supervisor would hang on it): closed instead, so that
        // the step's writes there fail (EPIPE) rather than wait for a reader.
        close_fd(read_fd_);
    }
}

bool StderrWatch::forward() {
    if (read_fd_ < 0 || eof_) return false;
    char buf[65536];
    // At most 1 MiB a call: then the supervisor looks at its signals and comes back.
    for (int i = 0; i < 16; ++i) {
        ssize_t got = ::read(read_fd_, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
        if (got <= 0) {  // a terminal's master says EIO once the step's last copy is closed
            eof_ = true;
            return false;
        }
        pass_on(buf, static_cast<std::size_t>(got));
    }
    return true;
}

void StderrWatch::pass_on(const char* data, std::size_t n) {
    write_all(STDERR_FILENO, data, n);
    partial_.append(data, n);
    std::size_t start = 0, nl;
    while ((nl = partial_.find('\n', start)) != std::string::npos) {
        std::string_view line(partial_.data() + start, nl - start);
        if (kept_.size() < kMaxKept && (reports_refusal(line) || names_watched(line))) kept_.push_back(as_drawn(line));
        start = nl + 1;
    }
    partial_.erase(0, start);
    if (partial_.size() > kMaxLine * 4) partial_.erase(0, partial_.size() - kMaxLine);
}

bool StderrWatch::names_watched(std::string_view line) const {
    for (const auto& p : watched_)
        if (line.find(p) != std::string_view::npos) return true;
    return false;
}

std::vector<std::string> StderrWatch::finish() {
    if (write_fd_ < 0) {  // started: what is left, then the unfinished last line
        while (forward()) {
        }
        if (!partial_.empty() && kept_.size() < kMaxKept && (reports_refusal(partial_) || names_watched(partial_)))
            kept_.push_back(as_drawn(partial_));
        partial_.clear();
    }
    close_fd(read_fd_);
    close_fd(write_fd_);
    return std::move(kept_);
}

}  // namespace toolcage::cage
