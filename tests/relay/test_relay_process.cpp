// The relay binary against real clients and servers on loopback.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "common/sanitizers.h"
#include "relay_harness.h"

using namespace relaytest;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

std::string connect_request(const std::string& target, const std::string& extra = "") {
    return "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n" + extra + "\r\n";
}

std::string auth_header(const std::string& token = kToken) {
    return "Proxy-Authorization: " + basic_auth("toolcage", token) + "\r\n";
}

std::string write_token(const TempDir& dir, const std::string& token = kToken) {
    std::string path = dir.file("token");
    std::ofstream(path) << token << "\n";
    return path;
}

// Opens a tunnel to `target` and checks the 200; returns the client socket.
// A tunnel's line is logged when it ends, on the relay's own time.
bool wait_for_log(const RelayProcess& relay, const std::string& needle) {
    for (int i = 0; i < 200; ++i) {
        if (relay.log().find(needle) != std::string::npos) return true;
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

int open_tunnel(int relay_port, const std::string& target, const std::string& extra = "") {
    int fd = connect_local(relay_port);
    send_all(fd, connect_request(target, extra));
    std::string head = read_head(fd, 5000ms);
    if (status_of(head) != 200) {
        ::close(fd);
        FAIL("tunnel to " << target << " refused: " << head);
    }
    return fd;
}

void expect_refused(const Exchange& ex, int status, const std::string& reason_part = "") {
    INFO(ex.response);
    CHECK(ex.status == status);
    CHECK(ex.closed);  // refusals end the connection
    CHECK_FALSE(header_of(ex.response, "X-Toolcage-Reason").empty());
    if (!reason_part.empty())
        CHECK(header_of(ex.response, "X-Toolcage-Reason").find(reason_part) != std::string::npos);
}

std::string curl_through(int relay_port, const TlsServer& tls, const std::string& host,
                         const std::string& proxy_user, int* code) {
    std::string cmd = "curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert " +
                      tls.cert() + " --proxy http://127.0.0.1:" + std::to_string(relay_port);
    if (!proxy_user.empty()) cmd += " --proxy-user " + proxy_user;
    cmd += " https://" + host + ":" + std::to_string(tls.port()) + "/ 2>&1";
    return run_command(cmd, code);
}

}  // namespace

TEST_CASE("curl reaches an allowed TLS server through the relay") {
    TempDir dir;
    TlsServer tls(dir);
    RelayProcess relay({"--allow", "localhost:" + std::to_string(tls.port()), "--allow-private",
                        "--token-file", write_token(dir)});
    int code = 0;
    std::string out = curl_through(relay.port(), tls, "localhost", "toolcage:" + kToken, &code);
    CHECK(code == 0);
    CHECK(out == "200");
    CHECK(wait_for_log(relay, "\"verdict\":\"allow\""));
    std::string log = relay.log();
    CHECK(log.find("\"mode\":\"direct\"") != std::string::npos);
    CHECK(log.find("\"host\":\"localhost\"") != std::string::npos);
    CHECK(log.find("--allow-private") != std::string::npos);  // said loudly
}

TEST_CASE("relay answers 407 to a missing or wrong token") {
    TempDir dir;
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--token-file", write_token(dir)});
    auto missing = exchange(relay.port(), connect_request(target));
    expect_refused(missing, 407);
    CHECK(header_of(missing.response, "Proxy-Authenticate") == "Basic realm=\"toolcage\"");
    expect_refused(exchange(relay.port(), connect_request(target, auth_header("wrong-token-0123456789"))),
                   407);
    expect_refused(exchange(relay.port(),
                            connect_request(target, "Proxy-Authorization: " +
                                                        basic_auth("someone", kToken) + "\r\n")),
                   407);
    CHECK(echo.accepted() == 0);
    int fd = open_tunnel(relay.port(), target, auth_header());
    ::close(fd);
}

TEST_CASE("without --token-file no auth is needed, and the log warns") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private"});
    int fd = open_tunnel(relay.port(), target);
    send_all(fd, "ping");
    CHECK(read_until(fd, "ping", 2000ms) == "ping");
    ::close(fd);
    CHECK(relay.log().find("no --token-file") != std::string::npos);
}

TEST_CASE("relay refuses CONNECT to an IP literal in any spelling") {
    EchoServer echo;
    std::string p = std::to_string(echo.port());
    RelayProcess relay({"--allow", "localhost:" + p, "--allow", "127.0.0.1:" + p, "--allow-private"});
    for (std::string t : {"127.1", "2130706433", "0x7f.1", "0x7f000001", "0177.0.0.1", "127.0.0.1.",
                          "[::ffff:127.0.0.1]", "[::1]", "[0:0:0:0:0:0:0:1]"}) {
        INFO(t);
        expect_refused(exchange(relay.port(), connect_request(t + ":" + p)), 403, "IP address");
    }
    // A zone id is refused before it gets that far.
    expect_refused(exchange(relay.port(), connect_request("[fe80::1%25lo]:" + p)), 400, "%");
    CHECK(echo.accepted() == 0);
    // The exact address an entry names does pass.
    int fd = open_tunnel(relay.port(), "127.0.0.1:" + p);
    ::close(fd);
}

TEST_CASE("relay matches wildcards on label boundaries only") {
    RelayProcess relay({"--allow", "*.example.com"});
    for (std::string t : {"example.com:443", "evilexample.com:443", "example.com.evil.net:443",
                          "a.example.com.evil.net:443", "a.example.com:80"}) {
        INFO(t);
        expect_refused(exchange(relay.port(), connect_request(t)), 403, "not on the allowlist");
    }
}

TEST_CASE("relay refuses a wildcard over a whole top-level domain at start") {
    TempDir dir;
    RelayProcess relay({"--allow", "*.com"}, {}, false);
    int status = 0;
    REQUIRE(relay.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(relay.stderr_text().find(
              "--allow \"*.com\": a wildcard must name at least two labels (use *.example.com)") !=
          std::string::npos);
}

TEST_CASE("relay answers 405 to any method but CONNECT") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), "GET http://a.example.com/ HTTP/1.1\r\nHost: a.example.com\r\n\r\n"), 405);
    expect_refused(exchange(relay.port(), "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), 405);
    expect_refused(exchange(relay.port(), "OPTIONS * HTTP/1.1\r\n\r\n"), 405);
}

TEST_CASE("relay answers 405 to the HTTP/2 preface") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 405);
}

TEST_CASE("relay answers 405 to an Upgrade") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(),
                            connect_request("a.example.com:443", "Upgrade: websocket\r\n"
                                                                 "Connection: Upgrade\r\n")),
                   405);
}

TEST_CASE("relay refuses obs-fold") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), "CONNECT a.example.com:443 HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n"),
                   400, "folding");
}

TEST_CASE("relay refuses whitespace before a header colon") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(),
                            "CONNECT a.example.com:443 HTTP/1.1\r\nProxy-Authorization : x\r\n\r\n"),
                   400, "whitespace");
}

TEST_CASE("relay answers 431 to a header over 8 KiB") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), connect_request("a.example.com:443",
                                                          "X-Pad: " + std::string(9000, 'p') + "\r\n")),
                   431);
}

TEST_CASE("relay answers 408 to a header not complete in time") {
    RelayProcess relay({"--allow", "a.example.com", "--header-timeout-ms", "300"});
    int fd = connect_local(relay.port());
    send_all(fd, "CONNECT a.example.com:443 HTTP/1.1\r\nHost: a");
    auto start = std::chrono::steady_clock::now();
    bool eof = false;
    std::string r = read_all(fd, 5000ms, &eof);
    auto took = std::chrono::steady_clock::now() - start;
    ::close(fd);
    CHECK(status_of(r) == 408);
    CHECK(eof);
    CHECK(took >= 200ms);
    CHECK(took < 3000ms);
}

TEST_CASE("relay refuses userinfo, percent and slash in the target") {
    RelayProcess relay({"--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), connect_request("user:pw@a.example.com:443")), 400, "userinfo");
    expect_refused(exchange(relay.port(), connect_request("a.example%2ecom:443")), 400, "%");
    expect_refused(exchange(relay.port(), connect_request("a.example.com:443/path")), 400, "/");
    expect_refused(exchange(relay.port(), connect_request("a.example.com\\x:443")), 400, "\\");
    expect_refused(exchange(relay.port(), connect_request("https://a.example.com:443")), 400);
    expect_refused(exchange(relay.port(), "CONNECT a.ex\x01mple.com:443 HTTP/1.1\r\n\r\n"), 400);
    expect_refused(exchange(relay.port(), "CONNECT a.ex\xc3\xa4mple.com:443 HTTP/1.1\r\n\r\n"), 400);
}

TEST_CASE("relay refuses a private address in direct mode without --allow-private") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target});
    expect_refused(exchange(relay.port(), connect_request(target)), 403, "loopback");
    CHECK(echo.accepted() == 0);
}

TEST_CASE("--allow-range opens a loopback range the resolver answers, and no other") {
    EchoServer echo;
    std::string target = "127.0.0.1:" + std::to_string(echo.port());
    {
        RelayProcess relay({"--allow", target, "--allow-range", "10.0.0.0/8"});
        expect_refused(exchange(relay.port(), connect_request(target)), 403, "relay.allow_ranges");
        CHECK(echo.accepted() == 0);
    }
    RelayProcess relay({"--allow", target, "--allow-range", "127.0.0.0/8"});
    Exchange ex = exchange(relay.port(), connect_request(target));
    INFO(ex.response);
    CHECK(ex.status == 200);
    CHECK(wait_for_log(relay, "--allow-range 127.0.0.0/8"));
}

TEST_CASE("--allow-range refuses a range holding a metadata address before listening") {
    RelayProcess relay({"--allow", "example.com", "--allow-range", "169.254.0.0/16"}, {}, false);
    int status = 0;
    REQUIRE(relay.wait_exit(std::chrono::seconds(5), &status));
    CHECK(WEXITSTATUS(status) != 0);
    INFO(relay.stderr_text() + relay.log());
    CHECK((relay.stderr_text() + relay.log()).find("never dials") != std::string::npos);
}

TEST_CASE("relay refuses a tunnel to itself") {
    int port = free_port();
    std::string p = std::to_string(port);
    RelayProcess relay({"--listen", "127.0.0.1:" + p, "--allow", "localhost:" + p, "--allow",
                        "127.0.0.1:" + p, "--allow-private"});
    REQUIRE(relay.port() == port);
    expect_refused(exchange(relay.port(), connect_request("localhost:" + p)), 403, "relay itself");
    expect_refused(exchange(relay.port(), connect_request("127.0.0.1:" + p)), 403, "relay itself");
}

TEST_CASE("relay refuses a tunnel to its upstream proxy") {
    EchoServer echo;  // stands for the upstream: it must never see a CONNECT to itself
    std::string up = "127.0.0.1:" + std::to_string(echo.port());
    RelayProcess relay({"--upstream", "http://" + up, "--allow", up});
    expect_refused(exchange(relay.port(), connect_request(up)), 403, "upstream proxy itself");
    CHECK(echo.accepted() == 0);
}

TEST_CASE("the upstream URL can come from a file, and is then refused to itself as well") {
    TempDir dir;
    EchoServer echo;
    std::string up = "127.0.0.1:" + std::to_string(echo.port());
    std::string file = dir.file("upstream");
    std::ofstream(file) << "http://user:secret@" << up << "\n";
    RelayProcess relay({"--upstream-file", file, "--allow", up});
    expect_refused(exchange(relay.port(), connect_request(up)), 403, "upstream proxy itself");
    CHECK(echo.accepted() == 0);
}

TEST_CASE("bytes sent before a refusal are never forwarded or read as a request") {
    TempDir dir;
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--token-file", write_token(dir)});
    // Unauthenticated CONNECT, then a valid one and payload, all in one write.
    std::string second = connect_request(target, auth_header()) + "payload";
    auto ex = exchange(relay.port(), connect_request(target) + second);
    expect_refused(ex, 407);
    CHECK(ex.response.find("200") == std::string::npos);
    // A refused target followed by an allowed one.
    ex = exchange(relay.port(), connect_request("evil.example.com:443", auth_header()) + second);
    expect_refused(ex, 403);
    std::this_thread::sleep_for(100ms);
    CHECK(echo.accepted() == 0);
    CHECK(echo.bytes() == 0);
}

TEST_CASE("bytes sent with the CONNECT reach the target only after the 200") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private"});
    int fd = connect_local(relay.port());
    send_all(fd, connect_request(target) + "early bytes");
    std::string got = read_all(fd, 500ms);
    ::close(fd);
    REQUIRE(got.rfind("HTTP/1.1 200", 0) == 0);
    CHECK(got.substr(got.find("\r\n\r\n") + 4) == "early bytes");
}

TEST_CASE("half-close travels through the tunnel") {
    EchoServer echo;  // shuts down its write side when it reads EOF
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private"});
    int fd = open_tunnel(relay.port(), target);
    send_all(fd, "last words");
    ::shutdown(fd, SHUT_WR);
    bool eof = false;
    std::string got = read_all(fd, 3000ms, &eof);
    ::close(fd);
    CHECK(got == "last words");  // still delivered after our half-close
    CHECK(eof);                  // and the server's half-close came back
    CHECK(wait_for_log(relay, "\"bytes_up\":10"));
}

TEST_CASE("relays chain: one relay's upstream is another relay") {
    TempDir dir;
    TlsServer tls(dir);
    std::string target = "localhost:" + std::to_string(tls.port());
    std::string outer_token = "fedcba9876543210fedcba9876543210";
    RelayProcess outer({"--allow", target, "--allow-private", "--token-file",
                        write_token(dir, outer_token)});
    TempDir dir2;
    RelayProcess inner({"--allow", target, "--allow", "refused-by-outer.example.com", "--upstream",
                        "http://toolcage:" + outer_token + "@127.0.0.1:" +
                            std::to_string(outer.port()),
                        "--token-file", write_token(dir2)});
    int code = 0;
    CHECK(curl_through(inner.port(), tls, "localhost", "toolcage:" + kToken, &code) == "200");
    CHECK(wait_for_log(inner, "\"mode\":\"upstream\""));
    CHECK(wait_for_log(outer, "\"verdict\":\"allow\""));
    // The outer relay's refusal comes back as 502 with the reason.
    auto ex = exchange(inner.port(),
                       connect_request("refused-by-outer.example.com:443", auth_header()));
    expect_refused(ex, 502, "403");
}

TEST_CASE("relay answers 503 beyond --max-tunnels") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--max-tunnels", "2"});
    int a = open_tunnel(relay.port(), target);
    int b = open_tunnel(relay.port(), target);
    expect_refused(exchange(relay.port(), connect_request(target)), 503, "--max-tunnels");
    ::close(a);
    std::this_thread::sleep_for(200ms);
    int c = open_tunnel(relay.port(), target);  // room again
    ::close(b);
    ::close(c);
}

TEST_CASE("relay holds 1,000 concurrent tunnels under 32 MB") {
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, 8192);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &lim) == 0);
    REQUIRE(lim.rlim_cur >= 4096);
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--max-tunnels", "2000"});
    std::vector<int> fds;
    for (int i = 0; i < 1000; ++i) fds.push_back(open_tunnel(relay.port(), target));
    // Every tunnel carries bytes both ways.
    for (size_t i = 0; i < fds.size(); ++i) send_all(fds[i], "x" + std::to_string(i) + ";");
    int ok = 0;
    for (size_t i = 0; i < fds.size(); ++i) {
        std::string want = "x" + std::to_string(i) + ";";
        if (read_until(fds[i], want, 2000ms) == want) ++ok;
    }
    CHECK(ok == 1000);
    CHECK(echo.accepted() == 1000);
    std::this_thread::sleep_for(300ms);  // let the handshakes settle
    long rss = rss_kib(relay.pid());
    INFO("relay VmRSS " << rss << " KiB, VmHWM " << hwm_kib(relay.pid()) << " KiB");
    CHECK(rss > 0);
    // AddressSanitizer's shadow memory alone exceeds the bound; the plain build holds it.
    if (!toolcage::kAddressSanitizer) CHECK(rss < 32 * 1024);
    for (int fd : fds) ::close(fd);
}

TEST_CASE("a slowloris client does not block others") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private"});
    std::vector<int> slow;
    for (int i = 0; i < 50; ++i) {
        int fd = connect_local(relay.port());
        send_all(fd, "CONNECT loc");
        slow.push_back(fd);
    }
    auto start = std::chrono::steady_clock::now();
    int fd = open_tunnel(relay.port(), target);
    send_all(fd, "hi");
    CHECK(read_until(fd, "hi", 2000ms) == "hi");
    ::close(fd);
    CHECK(std::chrono::steady_clock::now() - start < 2000ms);
    for (int s : slow) ::close(s);
}

TEST_CASE("relay exits and closes every tunnel when the watched pipe closes") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    int lifeline[2];
    REQUIRE(::pipe2(lifeline, O_CLOEXEC) == 0);
    RelayProcess relay({"--allow", target, "--allow-private", "--watch-fd", "4"},
                       {{4, lifeline[0]}});
    ::close(lifeline[0]);
    std::vector<int> tunnels;
    for (int i = 0; i < 5; ++i) tunnels.push_back(open_tunnel(relay.port(), target));
    auto start = std::chrono::steady_clock::now();
    ::close(lifeline[1]);  // the step is gone
    REQUIRE(relay.wait_exit(2000ms));
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    INFO("relay exited " << took.count() << " ms after the lifeline closed");
    CHECK(took < 300ms);  // the bound is 100 ms; the margin absorbs a loaded test machine
    for (int fd : tunnels) {
        bool eof = false;
        read_all(fd, 500ms, &eof);
        CHECK(eof);
        ::close(fd);
    }
    CHECK(relay.log().find("watched step ended") != std::string::npos);
}

TEST_CASE("relay exits when the step behind its pidfd dies") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    pid_t step = ::fork();
    if (step == 0) {
        ::pause();
        ::_exit(0);
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, step, 0));
    REQUIRE(pidfd >= 0);
    RelayProcess relay({"--allow", target, "--allow-private", "--watch-fd", "5"}, {{5, pidfd}});
    ::close(pidfd);
    int tunnel = open_tunnel(relay.port(), target);
    auto start = std::chrono::steady_clock::now();
    ::kill(step, SIGKILL);
    ::waitpid(step, nullptr, 0);
    REQUIRE(relay.wait_exit(2000ms));
    auto took = std::chrono::steady_clock::now() - start;
    CHECK(took < 300ms);
    bool eof = false;
    read_all(tunnel, 500ms, &eof);
    CHECK(eof);
    ::close(tunnel);
}

TEST_CASE("relay refuses a --watch-fd that is neither a pidfd nor a pipe") {
    TempDir dir;
    int f = ::open(dir.file("plain").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    RelayProcess relay({"--allow", "a.example.com", "--watch-fd", "4"}, {{4, f}}, false);
    ::close(f);
    int status = 0;
    REQUIRE(relay.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    INFO(relay.stderr_text());
    CHECK(relay.stderr_text().find("--watch-fd 4: is neither a pidfd nor a pipe") !=
          std::string::npos);
}

TEST_CASE("--detach leaves the relay with a subreaper for parent, in its own session") {
    REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    pid_t relay_pid = -1;
    {
        RelayProcess launcher({"--allow", target, "--allow-private", "--detach"});
        int status = 0;
        REQUIRE(launcher.wait_exit(5000ms, &status));  // the launcher's process is gone
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        // Find the relay among our (adopted) children.
        for (int tries = 0; tries < 100 && relay_pid < 0; ++tries) {
            DIR* d = ::opendir("/proc");
            while (dirent* e = ::readdir(d)) {
                pid_t pid = std::atoi(e->d_name);
                if (pid <= 0) continue;
                std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
                std::string line;
                std::getline(stat, line);
                size_t close_paren = line.rfind(')');
                if (close_paren == std::string::npos) continue;
                std::string comm = line.substr(line.find('(') + 1, close_paren - line.find('(') - 1);
                int ppid = 0;
                char state;
                std::sscanf(line.c_str() + close_paren + 2, "%c %d", &state, &ppid);
                if (comm == "toolcage-relay" && ppid == ::getpid() && state != 'Z') relay_pid = pid;
            }
            ::closedir(d);
            if (relay_pid < 0) std::this_thread::sleep_for(10ms);
        }
        REQUIRE(relay_pid > 0);
        CHECK(::getsid(relay_pid) != ::getsid(0));     // setsid() happened
        CHECK(::getsid(relay_pid) != relay_pid);       // not a session leader: no terminal again
        // It serves, and logs to the file given.
        int fd = open_tunnel(launcher.port(), target);
        send_all(fd, "detached");
        CHECK(read_until(fd, "detached", 2000ms) == "detached");
        ::close(fd);
        CHECK(wait_for_log(launcher, "\"verdict\":\"allow\""));
    }
    ::kill(relay_pid, SIGTERM);
    ::waitpid(relay_pid, nullptr, 0);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST_CASE("relay answers 502 with the reason when the dial fails") {
    int closed = free_port();  // nothing listens here
    std::string target = "localhost:" + std::to_string(closed);
    RelayProcess relay({"--allow", target, "--allow-private"});
    expect_refused(exchange(relay.port(), connect_request(target)), 502, "Connection refused");
}

TEST_CASE("upstream mode: no answer in time is 504") {
    ScriptedServer silent([](int fd) { read_all(fd, 2000ms); });
    RelayProcess relay({"--upstream", "http://127.0.0.1:" + std::to_string(silent.port()),
                        "--allow", "a.example.com", "--connect-timeout-ms", "300"});
    expect_refused(exchange(relay.port(), connect_request("a.example.com:443")), 504);
}

TEST_CASE("upstream mode: a non-2xx answer is 502 with the upstream's status") {
    std::string seen;
    ScriptedServer refusing([&seen](int fd) {
        seen = read_head(fd, 2000ms);
        send_all(fd, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n");
    });
    RelayProcess relay({"--upstream", "http://user:p%40ss@127.0.0.1:" + std::to_string(refusing.port()),
                        "--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), connect_request("a.example.com:443")), 502, "407");
    // Our own CONNECT, with the URL's userinfo (percent-decoded) as Basic credentials.
    CHECK(seen.rfind("CONNECT a.example.com:443 HTTP/1.1\r\n", 0) == 0);
    CHECK(header_of(seen, "Proxy-Authorization") == basic_auth("user", "p@ss"));
}

TEST_CASE("upstream mode: an oversize answer is 502") {
    ScriptedServer chatty([](int fd) {
        read_head(fd, 2000ms);
        send_all(fd, "HTTP/1.1 200 OK\r\nX-Pad: " + std::string(20000, 'p') + "\r\n\r\n");
        read_all(fd, 1000ms);
    });
    RelayProcess relay({"--upstream", "http://127.0.0.1:" + std::to_string(chatty.port()),
                        "--allow", "a.example.com"});
    expect_refused(exchange(relay.port(), connect_request("a.example.com:443")), 502, "8 KiB");
}

TEST_CASE("an idle tunnel is closed after --idle-timeout") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--idle-timeout", "1"});
    int fd = open_tunnel(relay.port(), target);
    bool eof = false;
    read_all(fd, 4000ms, &eof);
    ::close(fd);
    CHECK(eof);
    CHECK(wait_for_log(relay, "idle timeout"));
}

TEST_CASE("--idle-timeout-ms gives the idle timeout in milliseconds, as the other timeouts") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--allow", target, "--allow-private", "--idle-timeout-ms", "300"});
    int fd = open_tunnel(relay.port(), target);
    bool eof = false;
    read_all(fd, 4000ms, &eof);  // read as seconds, 300 would keep it open far longer
    ::close(fd);
    CHECK(eof);
    CHECK(wait_for_log(relay, "idle timeout"));
}

TEST_CASE("out of file descriptors, the relay backs off instead of spinning") {
    EchoServer echo;
    std::string target = "localhost:" + std::to_string(echo.port());
    rlimit saved{};
    ::getrlimit(RLIMIT_NOFILE, &saved);
    rlimit low = saved;
    low.rlim_cur = 48;  // the relay inherits this
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
    std::unique_ptr<RelayProcess> relay;
    try {
        relay = std::make_unique<RelayProcess>(
            std::vector<std::string>{"--allow", target, "--allow-private"});
    } catch (...) {
        ::setrlimit(RLIMIT_NOFILE, &saved);
        throw;
    }
    ::setrlimit(RLIMIT_NOFILE, &saved);
    // Silent clients: each holds one descriptor of the relay while it waits for a request
    // head, so the limit is reached in accept() itself, whatever the scheduling (a client
    // that sent its request could instead make the relay's dial fail first).
    std::vector<int> held;
    for (int i = 0; i < 64; ++i) held.push_back(connect_local(relay->port()));
    REQUIRE(wait_for_log(*relay, "pausing accepts"));
    auto cpu = [&] {
        std::ifstream stat("/proc/" + std::to_string(relay->pid()) + "/stat");
        std::string line;
        std::getline(stat, line);
        std::istringstream rest(line.substr(line.rfind(')') + 2));
        std::string field;
        long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && rest >> field; ++i) {
            if (i == 14) utime = std::stol(field);
            if (i == 15) stime = std::stol(field);
        }
        return utime + stime;  // clock ticks
    };
    long before = cpu();
    std::this_thread::sleep_for(1000ms);
    long used = cpu() - before;
    INFO("relay used " << used << " ticks in one second while out of descriptors");
    CHECK(used < ::sysconf(_SC_CLK_TCK) / 4);
    for (int fd : held) ::close(fd);
    std::this_thread::sleep_for(300ms);
    int fd = open_tunnel(relay->port(), target);  // serving again
    ::close(fd);
}
