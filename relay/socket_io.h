// Small socket helpers the relay shares: an owning fd, and reads/writes bounded by a deadline.
// Every socket the relay touches is non-blocking; these wait with poll() instead of blocking.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace toolcage::relay {

using Clock = std::chrono::steady_clock;

// An owned file descriptor, closed once.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) reset(std::exchange(o.fd_, -1));
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release() { return std::exchange(fd_, -1); }
    void reset(int fd = -1);

private:
    int fd_ = -1;
};

enum class IoStatus { ok, eof, timeout, error };

struct IoResult {
    IoStatus status = IoStatus::ok;
    size_t bytes = 0;
    int err = 0;  // errno when status == error
};

// Milliseconds left until `deadline`, at least 0 (for poll()).
int ms_until(Clock::time_point deadline);

// Reads what is available (at most `cap` bytes), waiting until `deadline` for the first byte.
IoResult read_some(int fd, char* buf, size_t cap, Clock::time_point deadline);

// Writes all of `data` before `deadline`.
IoResult write_all(int fd, std::string_view data, Clock::time_point deadline);

// After a refusal: send our answer, stop writing, then read and discard what the client still
// sends for a short while so that closing does not reset the connection before our answer is
// read. The discarded bytes are never parsed.
void close_gracefully(Fd& fd, std::string_view answer, std::chrono::milliseconds linger);

void set_nonblocking(int fd);

// "127.0.0.1:443" or "[::1]:443".
std::string sockaddr_to_string(const void* sa, unsigned len);

}  // namespace toolcage::relay
