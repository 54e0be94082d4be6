#include "relay/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace toolcage::relay {

void Fd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

int ms_until(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return 0;
    if (left.count() > 1'000'000) return 1'000'000;
    return static_cast<int>(left.count());
}

static bool wait_for(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        int n = ::poll(&p, 1, ms_until(deadline));
        if (n > 0) return true;
        if (n == 0) return false;
        if (errno != EINTR) return false;
    }
}

IoResult read_some(int fd, char* buf, size_t cap, Clock::time_point deadline) {
    for (;;) {
        ssize_t n = ::recv(fd, buf, cap, 0);
        if (n > 0) return {IoStatus::ok, static_cast<size_t>(n), 0};
        if (n == 0) return {IoStatus::eof, 0, 0};
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return {IoStatus::error, 0, errno};
        if (Clock::now() >= deadline || !wait_for(fd, POLLIN, deadline)) {
            // One last try: poll() may have timed out just as the bytes arrived.
            n = ::recv(fd, buf, cap, 0);
            if (n > 0) return {IoStatus::ok, static_cast<size_t>(n), 0};
            if (n == 0) return {IoStatus::eof, 0, 0};
            return {IoStatus::timeout, 0, 0};
        }
    }
}

IoResult write_all(int fd, std::string_view data, Clock::time_point deadline) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return {IoStatus::error, done, errno};
        if (!wait_for(fd, POLLOUT, deadline)) return {IoStatus::timeout, done, 0};
    }
    return {IoStatus::ok, done, 0};
}

void close_gracefully(Fd& fd, std::string_view answer, std::chrono::milliseconds linger) {
    if (!fd) return;
    auto deadline = Clock::now() + linger;
    write_all(fd.get(), answer, deadline);
    ::shutdown(fd.get(), SHUT_WR);
    char sink[4096];
    size_t discarded = 0;
    while (discarded < (1u << 20)) {
        IoResult r = read_some(fd.get(), sink, sizeof sink, deadline);
        if (r.status != IoStatus::ok) break;
        discarded += r.bytes;
    }
    fd.reset();
}

void set_nonblocking(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw Error(syscall_error("fcntl(fd, F_SETFL, O_NONBLOCK)", errno));
}

std::string sockaddr_to_string(const void* sa, unsigned len) {
    char text[INET6_ADDRSTRLEN] = "?";
    auto* base = static_cast<const sockaddr*>(sa);
    if (base->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
        auto* in = static_cast<const sockaddr_in*>(sa);
        ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
    }
    if (base->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        auto* in6 = static_cast<const sockaddr_in6*>(sa);
        ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        std::string out = "[";  // appended piecewise: GCC 12 misreports "[" + string (-Wrestrict)
        out += text;
        out += "]:";
        out += std::to_string(ntohs(in6->sin6_port));
        return out;
    }
    return "?";
}

}  // namespace toolcage::relay
