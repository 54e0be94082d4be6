// --listen-fd: the relay accepts on a listening socket it inherits (one made inside a step's
// private network namespace, in `toolcage run`).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "relay_harness.h"

using namespace relaytest;
using namespace std::chrono_literals;

namespace {

int listening_socket(int* port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

}  // namespace

TEST_CASE("relay accepts on an inherited listening socket (--listen-fd)", "[relay][listen-fd]") {
    EchoServer echo;
    int port = 0;
    int fd = listening_socket(&port);
    std::string target = "localhost:" + std::to_string(echo.port());
    RelayProcess relay({"--listen-fd", "5", "--allow", target, "--allow-private"}, {{5, fd}});
    ::close(fd);
    CHECK(relay.port() == port);  // the socket's own port is announced
    int c = connect_local(port);
    send_all(c, "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
    std::string head = read_head(c, 5000ms);
    INFO(head);
    CHECK(status_of(head) == 200);
    send_all(c, "ping");
    CHECK(read_until(c, "ping", 2000ms) == "ping");
    ::close(c);
    CHECK(echo.accepted() == 1);
}

TEST_CASE("relay refuses a --listen-fd that is not a listening TCP socket", "[relay][listen-fd]") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    RelayProcess pipe_fd({"--listen-fd", "5", "--allow", "a.example.com"}, {{5, p[0]}}, false);
    int status = 0;
    REQUIRE(pipe_fd.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(pipe_fd.stderr_text().find("--listen-fd 5") != std::string::npos);
    ::close(p[0]);
    ::close(p[1]);

    // Bound but not listening.
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    RelayProcess unlistened({"--listen-fd", "5", "--allow", "a.example.com"}, {{5, s}}, false);
    REQUIRE(unlistened.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(unlistened.stderr_text().find("not a listening TCP socket") != std::string::npos);
    ::close(s);

    // Not open at all.
    RelayProcess closed({"--listen-fd", "9", "--allow", "a.example.com"}, {}, false);
    REQUIRE(closed.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(closed.stderr_text().find("--listen-fd 9") != std::string::npos);
}

TEST_CASE("--listen and --listen-fd exclude each other", "[relay][listen-fd]") {
    int port = 0;
    int fd = listening_socket(&port);
    RelayProcess both({"--listen", "127.0.0.1:0", "--listen-fd", "5", "--allow", "a.example.com"},
                      {{5, fd}}, false);
    int status = 0;
    REQUIRE(both.wait_exit(5000ms, &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(both.stderr_text().find("excludes") != std::string::npos);
    ::close(fd);
}
