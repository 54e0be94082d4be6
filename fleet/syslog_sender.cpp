#include "fleet/syslog_sender.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "fleet/syslog_message.h"

namespace toolcage::fleet {

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// The address `t` names; false for a transport this function does not know.
bool address_of(const SyslogTarget& t, sockaddr_storage& ss, socklen_t& len) {
    std::memset(&ss, 0, sizeof ss);
    if (t.transport == "unix") {
        auto* un = reinterpret_cast<sockaddr_un*>(&ss);
        un->sun_family = AF_UNIX;
        std::memcpy(un->sun_path, t.address.c_str(), std::min(t.address.size(), sizeof un->sun_path - 1));
        len = sizeof(sockaddr_un);
        return true;
    }
    auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
    if (::inet_pton(AF_INET, t.address.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<uint16_t>(t.port));
        len = sizeof(sockaddr_in);
        return true;
    }
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (::inet_pton(AF_INET6, t.address.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<uint16_t>(t.port));
        len = sizeof(sockaddr_in6);
        return true;
    }
    return false;
}

int remaining_ms(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

// Waits until `fd` can take `events`; false when the deadline passes first.
bool wait_for(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        int r = ::poll(&p, 1, remaining_ms(deadline));
        if (r > 0) return true;
        if (r == 0 || errno != EINTR) return false;
    }
}

}  // namespace

SendResult send_syslog(const SyslogTarget& target, const std::vector<std::string>& messages,
                       std::chrono::milliseconds budget) {
    SendResult res;
    if (messages.empty()) return res;
    const auto deadline = Clock::now() + budget;
    sockaddr_storage ss;
    socklen_t len = 0;
    if (!address_of(target, ss, len)) {
        res.error = "not an address: " + target.address;
        return res;
    }
    const bool stream = target.transport == "tcp";
    Fd s{::socket(ss.ss_family, (stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
    if (s.fd < 0) {
        res.error = syscall_error("socket()", errno);
        return res;
    }
    const std::string where = target.transport == "unix" ? target.address
                                                         : target.address + ":" + std::to_string(target.port);
    if (::connect(s.fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN) {
            res.error = syscall_error("connect(" + where + ")", errno);
            return res;
        }
        int err = 0;
        socklen_t errlen = sizeof err;
        if (!wait_for(s.fd, POLLOUT, deadline)) {
            res.error = "connect(" + where + "): no answer within " + std::to_string(budget.count()) + " ms";
            return res;
        }
        ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &errlen);
        if (err != 0) {
            res.error = syscall_error("connect(" + where + ")", err);
            return res;
        }
    }
    if (!stream) {
        for (const auto& m : messages) {
            while (::send(s.fd, m.data(), m.size(), MSG_NOSIGNAL) < 0) {
                if ((errno == EAGAIN || errno == EINTR) && wait_for(s.fd, POLLOUT, deadline)) continue;
                res.error = syscall_error("send(" + where + ")", errno);
                return res;
            }
            ++res.sent;
        }
        return res;
    }
    // One buffer of every frame; a frame counts as sent once its last byte is written.
    std::string buf;
    std::vector<std::size_t> ends;
    for (const auto& m : messages) {
        buf += octet_counted(m);
        ends.push_back(buf.size());
    }
    std::size_t off = 0;
    while (off < buf.size()) {
        // At most 256 KiB a call, so that the deadline is looked at between them.
        ssize_t n = ::send(s.fd, buf.data() + off, std::min<std::size_t>(buf.size() - off, 256 * 1024), MSG_NOSIGNAL);
        if (n > 0) {
            off += static_cast<std::size_t>(n);
            if (off == buf.size() || Clock::now() < deadline) continue;  // a slow reader: the budget still holds
            errno = ETIMEDOUT;
            n = -1;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && wait_for(s.fd, POLLOUT, deadline)) continue;
        res.error = n < 0 ? syscall_error("send(" + where + ")", errno)
                          : "send(" + where + "): the collector took nothing within " +
                                std::to_string(budget.count()) + " ms";
        break;
    }
    while (res.sent < ends.size() && ends[res.sent] <= off) ++res.sent;
    if (res.sent < ends.size() && res.error.empty())
        res.error = "send(" + where + "): the collector took nothing within " + std::to_string(budget.count()) + " ms";
    return res;
}

}  // namespace toolcage::fleet
