#include "cage/containment/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace toolcage::cage {

int send_message(int channel, char tag, int fd) {
    iovec iov{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    ssize_t n;
    do n = ::sendmsg(channel, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n == 1) return 0;
    return n < 0 ? errno : EIO;
}

int receive_message(int channel, char& tag, int& fd) {
    fd = -1;
    iovec iov{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do n = ::recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0) return errno;
    if (n == 0) return ECONNABORTED;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        // Only one descriptor is ever sent; any more are closed rather than leaked.
        std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int got;
            std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
            if (fd < 0)
                fd = got;
            else
                ::close(got);
        }
    }
    if (msg.msg_flags & MSG_CTRUNC) {
        if (fd >= 0) ::close(fd);
        fd = -1;
        return EPROTO;
    }
    return 0;
}

}  // namespace toolcage::cage
