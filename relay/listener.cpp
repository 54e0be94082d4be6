#include "relay/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "relay/http_answer.h"
#include "relay/relay_log.h"
#include "relay/target.h"
#include "relay/workers.h"

namespace toolcage::relay {
namespace {

// Connections refused with 503 get a thread of their own too (to linger), but only this many.
constexpr int kMaxRefusers = 64;
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

std::atomic<int> g_in_use{0};
std::atomic<int> g_refusers{0};

}  // namespace

std::atomic<int>& connections_in_use() { return g_in_use; }

Fd listen_on(const std::string& spec, uint16_t& port) {
    auto fail = [&](const std::string& problem) {
        return Error("--listen \"" + spec + "\": " + problem + " (e.g. --listen 127.0.0.1:0)");
    };
    size_t colon = spec.rfind(':');
    if (colon == std::string::npos) throw fail("expected address:port");
    std::string host = spec.substr(0, colon);
    std::string port_text = spec.substr(colon + 1);
    unsigned long p = 0;
    if (port_text.empty() || port_text.size() > 5 ||
        port_text.find_first_not_of("0123456789") != std::string::npos ||
        (p = std::stoul(port_text)) > 65535)
        throw fail("the port must be a number from 0 to 65535");
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(static_cast<uint16_t>(p));
        if (::inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &in6->sin6_addr) != 1)
            throw fail("the bracketed address is not IPv6");
        len = sizeof *in6;
    } else {
        auto* in = reinterpret_cast<sockaddr_in*>(&ss);
        in->sin_family = AF_INET;
        in->sin_port = htons(static_cast<uint16_t>(p));
        if (::inet_pton(AF_INET, host.c_str(), &in->sin_addr) != 1)
            throw fail("the address must be an IPv4 dotted quad or [IPv6]");
        len = sizeof *in;
    }
    Fd fd(::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) throw Error(syscall_error("socket(SOCK_STREAM) for --listen " + spec, errno));
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0)
        throw Error(syscall_error("bind(" + spec + ")", errno) +
                    " (choose a free port, or port 0 for any)");
    if (::listen(fd.get(), 4096) != 0) throw Error(syscall_error("listen(" + spec + ")", errno));
    sockaddr_storage bound{};
    socklen_t blen = sizeof bound;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &blen);
    port = bound.ss_family == AF_INET
               ? ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port)
               : ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
    return fd;
}

Fd adopt_listener(int fd, uint16_t& port) {
    const std::string flag = "--listen-fd " + std::to_string(fd);
    auto sockopt = [&](int name, const char* text) {
        int v = 0;
        socklen_t len = sizeof v;
        if (::getsockopt(fd, SOL_SOCKET, name, &v, &len) != 0)
            throw Error(syscall_error(flag + ": getsockopt(" + text + ")", errno) +
                        " (pass a listening TCP socket the relay inherits)");
        return v;
    };
    int domain = sockopt(SO_DOMAIN, "SO_DOMAIN");
    if ((domain != AF_INET && domain != AF_INET6) || sockopt(SO_TYPE, "SO_TYPE") != SOCK_STREAM ||
        !sockopt(SO_ACCEPTCONN, "SO_ACCEPTCONN"))
        throw Error(flag + ": not a listening TCP socket (bind and listen() it before passing it)");
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
        ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
        throw Error(syscall_error(flag + ": fcntl(O_NONBLOCK, FD_CLOEXEC)", errno));
    sockaddr_storage bound{};
    socklen_t blen = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen) != 0)
        throw Error(syscall_error(flag + ": getsockname()", errno));
    port = bound.ss_family == AF_INET
               ? ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port)
               : ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
    return Fd(fd);
}

void accept_loop(int listen_fd, const AcceptLoopOptions& opt, const SessionContext& ctx) {
    static Workers workers;  // outlives the loop: the process exits, it never returns to here
    Clock::time_point paused_until{};
    Clock::time_point last_warning{};
    for (;;) {
        pollfd fds[2] = {{listen_fd, POLLIN, 0}, {opt.watch_fd, POLLIN, 0}};
        nfds_t nfds = opt.watch_fd >= 0 ? 2 : 1;
        bool paused = Clock::now() < paused_until;
        if (paused) fds[0].events = 0;
        int n = ::poll(fds, nfds, paused ? ms_until(paused_until) + 1 : -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(syscall_error("poll(listening socket, --watch-fd)", errno));
        }
        if (nfds == 2 && fds[1].revents != 0) return;
        if (paused || !(fds[0].revents & POLLIN)) continue;

        sockaddr_storage peer{};
        socklen_t plen = sizeof peer;
        int cfd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &plen,
                            SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
            int err = errno;
            if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
                // Out of descriptors or memory: the pending connection stays queued; wait for
                // tunnels to close instead of spinning on the same error.
                paused_until = Clock::now() + kAcceptBackoff;
                if (Clock::now() - last_warning > std::chrono::seconds(5)) {
                    last_warning = Clock::now();
                    log_event("warn", "accept", syscall_error("accept4()", err) +
                                                    "; pausing accepts (raise the fd limit, or "
                                                    "lower --max-tunnels)");
                }
            }
            continue;
        }
        Fd client(cfd);
        int one = 1;
        ::setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto accepted = Clock::now();
        std::string peer_text = sockaddr_to_string(&peer, plen);

        if (g_in_use.load() >= opt.max_tunnels) {
            // Full: answer 503 on a thread that lingers, unless too many already do.
            if (g_refusers.fetch_add(1) >= kMaxRefusers) {
                g_refusers.fetch_sub(1);
                continue;  // closes `client`
            }
            int raw = client.release();
            int max = opt.max_tunnels;
            bool ok = spawn_detached([raw, peer_text, accepted, max] {
                Fd c(raw);
                std::string reason = "the relay already holds " + std::to_string(max) +
                                     " connections (--max-tunnels)";
                close_gracefully(c, http_refusal(503, reason), std::chrono::milliseconds(1000));
                ConnectRecord rec;
                rec.client = peer_text;
                rec.verdict = "deny";
                rec.status = 503;
                rec.reason = reason;
                rec.ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   Clock::now() - accepted)
                                                   .count());
                log_connect(rec);
                g_refusers.fetch_sub(1);
            });
            if (!ok) {
                ::close(raw);
                g_refusers.fetch_sub(1);
            }
            continue;
        }
        g_in_use.fetch_add(1);
        int raw = client.release();
        bool ok = workers.submit([raw, peer_text, accepted, &ctx] {
            handle_client(Fd(raw), peer_text, accepted, ctx);
        });
        if (!ok) {
            Fd c(raw);
            close_gracefully(c, http_refusal(503, "the relay cannot start a thread now"),
                             std::chrono::milliseconds(0));
            g_in_use.fetch_sub(1);
        }
    }
}

}  // namespace toolcage::relay
