#include "cage/stderr_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

namespace toolcage::cage {

namespace {

constexpr std::size_t kMaxKept = 200;
constexpr std::size_t kMaxLine = 1024;

bool reports_refusal(std::string_view line) {
    for (std::string_view w : {"ermission denied", "EACCES", "peration not permitted", "EPERM", "ead-only file system", "EROFS"})
        if (line.find(w) != std::string_view::npos) return true;
    return false;
}

void write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;  // our stderr is gone: the step's output has nowhere to go either
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

StderrWatch::~StderrWatch() {
    if (thread_.joinable()) finish();
    close_fd(read_fd_);
    close_fd(write_fd_);
    close_fd(stop_[0]);
    close_fd(stop_[1]);
}

int StderrWatch::open() {
    if (::isatty(STDERR_FILENO)) return -1;
    struct stat out {
    }, err{};
    merged_ = ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 &&
              out.st_dev == err.st_dev && out.st_ino == err.st_ino;
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return -1;
    if (::pipe2(stop_, O_CLOEXEC) != 0) {
        ::close(p[0]);
        ::close(p[1]);
        stop_[0] = stop_[1] = -1;
        return -1;
    }
    read_fd_ = p[0];
    write_fd_ = p[1];
    return write_fd_;
}

void StderrWatch::start() {
    if (read_fd_ < 0) return;
    close_fd(write_fd_);
    thread_ = std::thread([this] { pump(); });
}

void StderrWatch::pump() {
    // A reader of our stderr that went away must not kill the supervisor: write() says EPIPE.
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
    char buf[65536];
    bool stopping = false;
    for (;;) {
        if (!stopping) {
            pollfd fds[2] = {{read_fd_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
            int n = ::poll(fds, 2, -1);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return;
            if (fds[1].revents) {
                // The step is over; what is left in the pipe is read without waiting (a
                // process that escaped with the write end must not hold us).
                stopping = true;
                ::fcntl(read_fd_, F_SETFL, ::fcntl(read_fd_, F_GETFL) | O_NONBLOCK);
            }
            if (!fds[0].revents && !stopping) continue;
        }
        ssize_t got = ::read(read_fd_, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        write_all(STDERR_FILENO, buf, static_cast<std::size_t>(got));
        partial_.append(buf, static_cast<std::size_t>(got));
        std::size_t start = 0, nl;
        while ((nl = partial_.find('\n', start)) != std::string::npos) {
            std::string_view line(partial_.data() + start, nl - start);
            if (kept_.size() < kMaxKept && (reports_refusal(line) || names_watched(line)))
                kept_.emplace_back(line.substr(0, kMaxLine));
            start = nl + 1;
        }
        partial_.erase(0, start);
        if (partial_.size() > kMaxLine * 4) partial_.erase(0, partial_.size() - kMaxLine);
    }
    if (!partial_.empty() && kept_.size() < kMaxKept && (reports_refusal(partial_) || names_watched(partial_)))
        kept_.push_back(partial_.substr(0, kMaxLine));
}

bool StderrWatch::names_watched(std::string_view line) const {
    for (const auto& p : watched_)
        if (line.find(p) != std::string_view::npos) return true;
    return false;
}

std::vector<std::string> StderrWatch::finish() {
    if (thread_.joinable()) {
        char b = 1;
        while (::write(stop_[1], &b, 1) < 0 && errno == EINTR) {
        }
        thread_.join();
    }
    close_fd(read_fd_);
    return std::move(kept_);
}

}  // namespace toolcage::cage
