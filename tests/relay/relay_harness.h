// Real processes and sockets for the relay's tests: the relay binary started with a ready
// pipe, an epoll echo server, raw TCP clients, and an openssl TLS server.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace relaytest {

// A fresh directory under /tmp, removed at the end.
struct TempDir {
    TempDir();
    ~TempDir();
    std::string path;
    std::string file(const std::string& name) const { return path + "/" + name; }
};

struct ExtraFd {
    int child_fd;   // number in the relay
    int parent_fd;  // our fd, dup2()ed onto child_fd in the child
};

// toolcage-relay, started with --ready-fd 3; killed (SIGKILL) at the end if still running.
class RelayProcess {
public:
    // `prefix`: words before the relay's path (`setpriv ...` to run it as another user, who
    // then needs the binary at `binary` and writes its log in a directory open to it).
    RelayProcess(std::vector<std::string> args, std::vector<ExtraFd> extra = {},
                 bool expect_ready = true, std::vector<std::string> prefix = {},
                 std::string binary = TOOLCAGE_RELAY_BIN);
    ~RelayProcess();
    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string log() const;
    const std::string& log_path() const { return log_path_; }
    // Waits up to `timeout` for the process to exit; true if it did.
    bool wait_exit(std::chrono::milliseconds timeout, int* status = nullptr);
    std::string stderr_text() const;

private:
    TempDir dir_;
    std::string log_path_;
    pid_t pid_ = -1;
    int port_ = 0;
    bool exited_ = false;
};

// Accepts any number of connections and echoes what it reads; counts what it saw.
class EchoServer {
public:
    EchoServer();
    ~EchoServer();
    int port() const { return port_; }
    int accepted() const { return accepted_.load(); }
    long bytes() const { return bytes_.load(); }

private:
    void run();
    int listen_fd_ = -1;
    int epoll_fd_ = -1;
    int stop_fd_ = -1;
    int port_ = 0;
    std::atomic<int> accepted_{0};
    std::atomic<long> bytes_{0};
    std::thread thread_;
};

// Accepts connections and hands each to `serve` on its own thread (a scripted peer).
class ScriptedServer {
public:
    explicit ScriptedServer(std::function<void(int fd)> serve);
    ~ScriptedServer();
    int port() const { return port_; }
    int accepted() const { return accepted_.load(); }

private:
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> accepted_{0};
    std::thread thread_;
    std::vector<std::thread> served_;
};

// `openssl s_server -www` with a self-signed certificate for "localhost".
class TlsServer {
public:
    explicit TlsServer(const TempDir& dir);
    ~TlsServer();
    int port() const { return port_; }
    std::string cert() const { return cert_; }

private:
    pid_t pid_ = -1;
    int port_ = 0;
    std::string cert_;
};

int free_port();
int connect_local(int port);  // blocking TCP connect to 127.0.0.1; throws on failure
void send_all(int fd, const std::string& data);
// Reads until EOF or `timeout`; sets *eof when the peer closed.
std::string read_all(int fd, std::chrono::milliseconds timeout, bool* eof = nullptr);
// Reads until `want` has arrived (or EOF, or timeout); returns what was read.
std::string read_until(int fd, const std::string& want, std::chrono::milliseconds timeout);
// Reads until "\r\n\r\n" (the response head) or timeout; returns what was read.
std::string read_head(int fd, std::chrono::milliseconds timeout);
int status_of(const std::string& response);  // from "HTTP/1.1 403 ...", or -1
std::string header_of(const std::string& response, const std::string& name);
// A request sent on a fresh connection; returns everything until the relay closes.
struct Exchange {
    std::string response;
    bool closed = false;
    int status = -1;
};
Exchange exchange(int port, const std::string& request,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
std::string basic_auth(const std::string& user, const std::string& password);
// Runs a command, returns its stdout; *code gets the exit status.
std::string run_command(const std::string& cmd, int* code);
// What an OpenSSL client sends first: its ClientHello, in one record, naming `sni` (none when
// empty). `ech`: with an encrypted_client_hello extension, as Chromium's GREASE sends one.
std::string tls_client_hello(const std::optional<std::string>& sni, bool ech = false);
long rss_kib(pid_t pid);  // VmRSS
long hwm_kib(pid_t pid);  // VmHWM

}  // namespace relaytest
