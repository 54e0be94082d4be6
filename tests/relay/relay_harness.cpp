#include "relay_harness.h"

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "relay/auth.h"

namespace relaytest {

using Clock = std::chrono::steady_clock;

static int ms_left(Clock::time_point deadline) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return ms < 0 ? 0 : static_cast<int>(ms);
}

TempDir::TempDir() {
    char tmpl[] = "/tmp/toolcage-relay-test-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

RelayProcess::RelayProcess(std::vector<std::string> args, std::vector<ExtraFd> extra,
                           bool expect_ready, std::vector<std::string> prefix,
                           std::string binary) {
    log_path_ = dir_.file("relay.log");
    if (!prefix.empty()) ::chmod(dir_.path.c_str(), 0777);  // the other user writes its log
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {binary, "--ready-fd", "3", "--log", log_path_});
    argv.insert(argv.end(), args.begin(), args.end());
    std::string err_path = dir_.file("stderr");
    pid_ = ::fork();
    if (pid_ == 0) {
        // Move every source above the targets (fds 3..9) first, so no dup2() overwrites another source.
        int ready_high = ::fcntl(ready[1], F_DUPFD_CLOEXEC, 10);
        std::vector<int> high;
        for (const auto& e : extra) high.push_back(::fcntl(e.parent_fd, F_DUPFD_CLOEXEC, 10));
        ::dup2(ready_high, 3);
        for (size_t i = 0; i < extra.size(); ++i) ::dup2(high[i], extra[i].child_fd);
        int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (err >= 0) ::dup2(err, 2);
        std::vector<char*> cargv;
        for (auto& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        ::execvp(cargv[0], cargv.data());
        ::_exit(127);
    }
    ::close(ready[1]);
    if (!expect_ready) {
        ::close(ready[0]);
        return;
    }
    std::string text = read_all(ready[0], std::chrono::milliseconds(10000));
    ::close(ready[0]);
    if (text.empty() || text.back() != '\n')
        throw std::runtime_error("relay did not announce its port; stderr: " + stderr_text());
    port_ = std::stoi(text);
}

RelayProcess::~RelayProcess() {
    if (pid_ > 0 && !exited_) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

bool RelayProcess::wait_exit(std::chrono::milliseconds timeout, int* status) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
        int st = 0;
        pid_t r = ::waitpid(pid_, &st, WNOHANG);
        if (r == pid_) {
            exited_ = true;
            if (status) *status = st;
            return true;
        }
        if (Clock::now() >= deadline) return false;
        ::usleep(1000);
    }
}

static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string RelayProcess::log() const { return slurp(log_path_); }
std::string RelayProcess::stderr_text() const { return slurp(dir_.file("stderr")); }

static int listen_local(int* port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 4096) != 0)
        throw std::runtime_error("listen failed");
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

int free_port() {
    int port = 0;
    int fd = listen_local(&port);
    ::close(fd);
    return port;
}

EchoServer::EchoServer() {
    listen_fd_ = listen_local(&port_);
    ::fcntl(listen_fd_, F_SETFL, O_NONBLOCK);
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = listen_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    ev.data.fd = stop_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &ev);
    thread_ = std::thread([this] { run(); });
}

EchoServer::~EchoServer() {
    uint64_t one = 1;
    ssize_t n = ::write(stop_fd_, &one, sizeof one);
    (void)n;
    thread_.join();
    ::close(listen_fd_);
    ::close(epoll_fd_);
    ::close(stop_fd_);
}

void EchoServer::run() {
    epoll_event events[128];
    char buf[65536];
    std::vector<int> open;
    for (;;) {
        int n = ::epoll_wait(epoll_fd_, events, 128, -1);
        for (int i = 0; i < n; ++i) {
            int fd = events[i].data.fd;
            if (fd == stop_fd_) {
                for (int c : open) ::close(c);
                return;
            }
            if (fd == listen_fd_) {
                for (;;) {
                    int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
                    if (c < 0) break;
                    accepted_++;
                    open.push_back(c);
                    epoll_event ev{};
                    ev.events = EPOLLIN;
                    ev.data.fd = c;
                    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c, &ev);
                }
                continue;
            }
            ssize_t r = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r > 0) {
                bytes_ += r;
                send_all(fd, std::string(buf, static_cast<size_t>(r)));
            } else if (r == 0) {
                ::shutdown(fd, SHUT_WR);  // echo the half-close too
                ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
            } else if (errno != EAGAIN) {
                ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
            }
        }
    }
}

ScriptedServer::ScriptedServer(std::function<void(int fd)> serve) {
    listen_fd_ = listen_local(&port_);
    thread_ = std::thread([this, serve] {
        while (!stop_) {
            pollfd p{listen_fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) continue;
            accepted_++;
            served_.emplace_back([serve, c] {
                serve(c);
                ::close(c);
            });
        }
    });
}

ScriptedServer::~ScriptedServer() {
    stop_ = true;
    thread_.join();
    for (auto& t : served_) t.join();
    ::close(listen_fd_);
}

TlsServer::TlsServer(const TempDir& dir) {
    cert_ = dir.file("cert.pem");
    std::string key = dir.file("key.pem");
    int code = 0;
    run_command("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + key + " -out " + cert_ +
                    " -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost 2>/dev/null",
                &code);
    if (code != 0) throw std::runtime_error("openssl req failed");
    port_ = free_port();
    pid_ = ::fork();
    if (pid_ == 0) {
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::string accept = "127.0.0.1:" + std::to_string(port_);
        ::execlp("openssl", "openssl", "s_server", "-accept", accept.c_str(), "-cert",
                 cert_.c_str(), "-key", key.c_str(), "-www", "-quiet", nullptr);
        ::_exit(127);
    }
    // Wait until it listens.
    auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
        int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port_));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        if (ok) return;
        ::usleep(20000);
    }
    throw std::runtime_error("openssl s_server did not start");
}

TlsServer::~TlsServer() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

int connect_local(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        int e = errno;
        ::close(fd);
        throw std::runtime_error(std::string("connect: ") + std::strerror(e));
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void send_all(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

std::string read_all(int fd, std::chrono::milliseconds timeout, bool* eof) {
    auto deadline = Clock::now() + timeout;
    std::string out;
    char buf[8192];
    if (eof) *eof = false;
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        int n = ::poll(&p, 1, ms_left(deadline));
        if (n <= 0) return out;
        ssize_t r = ::read(fd, buf, sizeof buf);
        if (r <= 0) {
            if (eof) *eof = true;  // EOF or reset: either way the peer is gone
            return out;
        }
        out.append(buf, static_cast<size_t>(r));
    }
}

std::string read_until(int fd, const std::string& want, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    std::string out;
    char buf[8192];
    while (out.find(want) == std::string::npos) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, ms_left(deadline)) <= 0) break;
        ssize_t r = ::read(fd, buf, sizeof buf);
        if (r <= 0) break;
        out.append(buf, static_cast<size_t>(r));
    }
    return out;
}

std::string read_head(int fd, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, ms_left(deadline)) <= 0) break;
        if (::read(fd, &c, 1) != 1) break;  // byte by byte: leave tunnel bytes unread
        out.push_back(c);
    }
    return out;
}

int status_of(const std::string& response) {
    if (response.size() < 12 || response.compare(0, 5, "HTTP/") != 0) return -1;
    return std::atoi(response.c_str() + 9);
}

std::string header_of(const std::string& response, const std::string& name) {
    std::string head = response.substr(0, response.find("\r\n\r\n"));
    std::string key = "\r\n" + name + ": ";
    size_t at = head.find(key);
    if (at == std::string::npos) return "";
    size_t start = at + key.size();
    return head.substr(start, head.find("\r\n", start) - start);
}

Exchange exchange(int port, const std::string& request, std::chrono::milliseconds timeout) {
    Exchange ex;
    int fd = connect_local(port);
    send_all(fd, request);
    ex.response = read_all(fd, timeout, &ex.closed);
    ex.status = status_of(ex.response);
    ::close(fd);
    return ex;
}

std::string basic_auth(const std::string& user, const std::string& password) {
    return "Basic " + toolcage::relay::base64_encode(user + ":" + password);
}

std::string run_command(const std::string& cmd, int* code) {
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) {
        *code = -1;
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int st = ::pclose(p);
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

static long status_field(pid_t pid, const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
    return -1;
}

long rss_kib(pid_t pid) { return status_field(pid, "VmRSS"); }
long hwm_kib(pid_t pid) { return status_field(pid, "VmHWM"); }

static int add_ech(SSL*, unsigned, unsigned, const unsigned char** out, size_t* len, X509*,
                   size_t, int*, void*) {
    static const unsigned char grease[] = {0, 0, 1, 0, 1, 0x2a, 0, 0x20};
    *out = grease;
    *len = sizeof grease;
    return 1;
}

std::string tls_client_hello(const std::optional<std::string>& sni, bool ech) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) throw std::runtime_error("SSL_CTX_new failed");
    if (ech && SSL_CTX_add_custom_ext(ctx, 0xfe0d, SSL_EXT_CLIENT_HELLO, add_ech, nullptr,
                                      nullptr, nullptr, nullptr) != 1)
        throw std::runtime_error("SSL_CTX_add_custom_ext failed");
    SSL* ssl = SSL_new(ctx);
    if (sni) SSL_set_tlsext_host_name(ssl, sni->c_str());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, BIO_new(BIO_s_mem()), out);
    SSL_set_connect_state(ssl);
    SSL_do_handshake(ssl);  // wants to read the server's answer: the hello is written
    char* data = nullptr;
    long n = BIO_get_mem_data(out, &data);
    std::string hello(data, n > 0 ? static_cast<size_t>(n) : 0);
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    if (hello.empty()) throw std::runtime_error("OpenSSL wrote no ClientHello");
    return hello;
}

}  // namespace relaytest
