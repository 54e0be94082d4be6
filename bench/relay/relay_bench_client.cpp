// A small CONNECT client for comparing proxies on loopback. It runs its own target servers
// (an echo server and a bulk sink) and measures, through the proxy given or directly:
//   connect  time from TCP connect to the proxy until the first echoed byte comes back
//            through a fresh tunnel (CONNECT, 200, one byte each way)
//   rtt      one-byte round trips inside one open tunnel
//   bulk     throughput of one stream pushed through one tunnel
// With --idle N it instead opens N tunnels, exchanges a byte on each and reports the peak RSS
// of --rss-pid while they are held.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "relay_bench_client: %s: %s\n", what.c_str(), std::strerror(errno));
    std::exit(1);
}

int listen_loopback(int* port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 4096) != 0)
        die("listen");
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

int dial(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die("connect");
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("send");
        p += w;
        n -= static_cast<size_t>(w);
    }
}

void read_exact(int fd, char* p, size_t n) {
    while (n > 0) {
        ssize_t r = ::recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("recv (peer closed)");
        p += r;
        n -= static_cast<size_t>(r);
    }
}

// An epoll echo server for any number of connections.
void echo_server(int lfd) {
    int ep = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = lfd;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    epoll_event events[256];
    char buf[65536];
    for (;;) {
        int n = ::epoll_wait(ep, events, 256, -1);
        for (int i = 0; i < n; ++i) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0) continue;
                int one = 1;
                ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                epoll_event cev{};
                cev.events = EPOLLIN;
                cev.data.fd = c;
                ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                continue;
            }
            ssize_t r = ::recv(fd, buf, sizeof buf, 0);
            if (r <= 0) {
                ::close(fd);
                continue;
            }
            write_all(fd, buf, static_cast<size_t>(r));
        }
    }
}

// Reads `bytes` from each connection, then answers one byte.
void sink_server(int lfd, size_t bytes) {
    std::vector<char> buf(1 << 20);
    for (;;) {
        int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        size_t got = 0;
        while (got < bytes) {
            ssize_t r = ::recv(c, buf.data(), buf.size(), 0);
            if (r <= 0) break;
            got += static_cast<size_t>(r);
        }
        write_all(c, "k", 1);
        ::close(c);
    }
}

struct Proxy {
    int port = 0;  // 0: direct
    std::string auth;  // "Basic ..." or empty
};

std::string base64(const std::string& in) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v = (unsigned(uint8_t(in[i])) << 16) | (unsigned(uint8_t(in[i + 1])) << 8) |
                     uint8_t(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out.push_back(a[(v >> s) & 63]);
    }
    if (i < in.size()) {
        unsigned v = unsigned(uint8_t(in[i])) << 16;
        if (i + 1 < in.size()) v |= unsigned(uint8_t(in[i + 1])) << 8;
        out.push_back(a[(v >> 18) & 63]);
        out.push_back(a[(v >> 12) & 63]);
        out.push_back(i + 1 < in.size() ? a[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

// A connection to the target, through the proxy if there is one.
int open_tunnel(const Proxy& proxy, const std::string& host, int target_port) {
    if (proxy.port == 0) return dial(target_port);
    int fd = dial(proxy.port);
    std::string authority = host + ":" + std::to_string(target_port);
    std::string req = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
    if (!proxy.auth.empty()) req += "Proxy-Authorization: " + proxy.auth + "\r\n";
    req += "\r\n";
    write_all(fd, req.data(), req.size());
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos) {
        read_exact(fd, &c, 1);
        head.push_back(c);
        if (head.size() > 8192) die("oversize proxy answer");
    }
    if (head.compare(0, 9, "HTTP/1.1 ") != 0 && head.compare(0, 9, "HTTP/1.0 ") != 0) die("bad answer");
    if (head[9] != '2') {
        std::fprintf(stderr, "proxy refused: %s\n", head.c_str());
        std::exit(1);
    }
    return fd;
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
    return v[i];
}

double us_since(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

long status_kib(long pid, const char* field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field) + 1);
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"CONNECT proxy benchmark client"};
    int proxy_port = 0;
    std::string proxy_user;
    std::string host = "localhost";
    std::string name = "direct";
    int connects = 300;
    int rtts = 3000;
    double bulk_mib = 1024;
    int bulk_runs = 3;
    int idle = 0;
    long rss_pid = 0;
    app.add_option("--proxy-port", proxy_port, "proxy on 127.0.0.1 (0: direct)");
    app.add_option("--proxy-user", proxy_user, "user:password for Proxy-Authorization");
    app.add_option("--host", host, "the target's name in CONNECT");
    app.add_option("--name", name, "label for the result line");
    app.add_option("--connects", connects);
    app.add_option("--rtts", rtts);
    app.add_option("--bulk-mib", bulk_mib);
    app.add_option("--bulk-runs", bulk_runs);
    app.add_option("--idle", idle, "hold this many idle tunnels and report --rss-pid's memory");
    app.add_option("--rss-pid", rss_pid, "also settable on the start line");
    CLI11_PARSE(app, argc, argv);

    Proxy proxy{proxy_port, proxy_user.empty() ? "" : "Basic " + base64(proxy_user)};
    size_t bulk_bytes = static_cast<size_t>(bulk_mib * 1024 * 1024);

    int echo_port = 0, sink_port = 0;
    int echo_fd = listen_loopback(&echo_port);
    int sink_fd = listen_loopback(&sink_port);
    std::thread(echo_server, echo_fd).detach();
    std::thread(sink_server, sink_fd, bulk_bytes).detach();
    // Tell the script which ports to allow, then wait for it to start the proxy.
    std::printf("ports %d %d\n", echo_port, sink_port);
    std::fflush(stdout);
    std::string go;
    if (!std::getline(std::cin, go)) return 1;
    // "PROXY_PORT [PROXY_PID]": port 0 means direct; the pid is whose memory --idle reports.
    std::istringstream words(go);
    long given_port = 0, given_pid = 0;
    words >> given_port >> given_pid;
    if (given_port > 0) proxy.port = static_cast<int>(given_port);
    if (given_pid > 0) rss_pid = given_pid;

    if (idle > 0) {
        std::vector<int> fds;
        char c = 'i';
        for (int i = 0; i < idle; ++i) {
            int fd = open_tunnel(proxy, host, echo_port);
            write_all(fd, &c, 1);
            read_exact(fd, &c, 1);
            fds.push_back(fd);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        std::printf("idle %s tunnels=%d rss_kib=%ld hwm_kib=%ld\n", name.c_str(), idle,
                    status_kib(rss_pid, "VmRSS:"), status_kib(rss_pid, "VmHWM:"));
        for (int fd : fds) ::close(fd);
        return 0;
    }

    // 1. Fresh tunnel until the first echoed byte.
    std::vector<double> connect_us;
    for (int i = 0; i < connects; ++i) {
        auto t0 = Clock::now();
        int fd = open_tunnel(proxy, host, echo_port);
        char c = 'c';
        write_all(fd, &c, 1);
        read_exact(fd, &c, 1);
        connect_us.push_back(us_since(t0));
        ::close(fd);
    }
    // 2. Round trips inside one tunnel.
    std::vector<double> rtt_us;
    {
        int fd = open_tunnel(proxy, host, echo_port);
        char c = 'r';
        for (int i = 0; i < rtts; ++i) {
            auto t0 = Clock::now();
            write_all(fd, &c, 1);
            read_exact(fd, &c, 1);
            rtt_us.push_back(us_since(t0));
        }
        ::close(fd);
    }
    // 3. One stream, best of a few runs.
    double best_mibs = 0;
    std::vector<char> chunk(256 * 1024, 'b');
    for (int run = 0; run < bulk_runs; ++run) {
        int fd = open_tunnel(proxy, host, sink_port);
        auto t0 = Clock::now();
        size_t left = bulk_bytes;
        while (left > 0) {
            size_t n = std::min(left, chunk.size());
            write_all(fd, chunk.data(), n);
            left -= n;
        }
        char ack;
        read_exact(fd, &ack, 1);
        double secs = us_since(t0) / 1e6;
        best_mibs = std::max(best_mibs, bulk_mib / secs);
        ::close(fd);
    }
    std::printf("result %s connect_p50_us=%.1f connect_p99_us=%.1f rtt_p50_us=%.1f rtt_p99_us=%.1f "
                "bulk_mib_s=%.1f\n",
                name.c_str(), percentile(connect_us, 0.5), percentile(connect_us, 0.99),
                percentile(rtt_us, 0.5), percentile(rtt_us, 0.99), best_mibs);
    return 0;
}
