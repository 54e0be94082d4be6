// The relay checks each tunnel's TLS handshake without inspecting it: real clients (curl,
// openssl s_client, raw sockets) through the relay binary to real servers on loopback, as root
// and as an ordinary user.
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <mutex>
#include <sys/stat.h>
#include <thread>

#include "relay_harness.h"
#include "tests/other_user.h"

using namespace relaytest;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

std::string write_token(const TempDir& dir) {
    std::string path = dir.file("token");
    std::ofstream(path) << kToken << "\n";
    ::chmod(dir.path.c_str(), 0755);  // the relay may run as another user
    ::chmod(path.c_str(), 0644);
    return path;
}

bool wait_for_log(const RelayProcess& relay, const std::string& needle) {
    for (int i = 0; i < 300; ++i) {
        if (relay.log().find(needle) != std::string::npos) return true;
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

// A target that keeps every byte it is sent, to show what reached it.
struct RecordingServer {
    std::mutex mu;
    std::string got;
    ScriptedServer server{[this](int fd) {
        char buf[4096];
        for (;;) {
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) return;
            std::lock_guard<std::mutex> lock(mu);
            got.append(buf, static_cast<size_t>(n));
        }
    }};
    std::string bytes() {
        std::lock_guard<std::mutex> lock(mu);
        return got;
    }
};

int open_tunnel(int relay_port, const std::string& target) {
    int fd = connect_local(relay_port);
    send_all(fd, "CONNECT " + target + " HTTP/1.1\r\nHost: " + target +
                     "\r\nProxy-Authorization: " + basic_auth("toolcage", kToken) + "\r\n\r\n");
    std::string head = read_head(fd, 5000ms);
    if (status_of(head) != 200) {
        ::close(fd);
        FAIL("tunnel to " << target << " refused: " << head);
    }
    return fd;
}

// openssl s_client through the relay to `tls`, naming `servername` ("" for no SNI), run as the
// case's user; returns what it printed, and its exit status in *code.
std::string s_client(int relay_port, int tls_port, const std::string& servername, bool as_nobody,
                     int* code) {
    std::string cmd = "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | timeout 20 " +
                      (as_nobody ? testsupport::as_nobody_shell_prefix() : std::string()) +
                      "openssl s_client -quiet -proxy 127.0.0.1:" + std::to_string(relay_port) +
                      " -proxy_user toolcage -proxy_pass pass:" + kToken +
                      " -connect localhost:" + std::to_string(tls_port) +
                      (servername.empty() ? " -noservername" : " -servername " + servername) +
                      " 2>&1";
    return run_command("cd / && " + cmd, code);
}

std::vector<std::string> relay_args(const TempDir& dir, int port, bool allow_missing_sni = false) {
    std::vector<std::string> a = {"--allow",      "localhost:" + std::to_string(port),
                                  "--allow-private", "--token-file", write_token(dir)};
    if (allow_missing_sni) a.push_back("--allow-missing-sni");
    return a;
}

}  // namespace

TEST_CASE("s_client through the relay: the CONNECT's own name completes, another name or none is refused") {
    for (bool as_nobody : {false, true}) {
        if (as_nobody && !testsupport::can_switch_user()) continue;
        DYNAMIC_SECTION((as_nobody ? "as nobody" : "as the tests' user")) {
            TempDir dir;
            TlsServer tls(dir);
            std::vector<std::string> prefix;
            std::string binary = TOOLCAGE_RELAY_BIN;
            if (as_nobody) {
                prefix = testsupport::as_nobody_prefix();
                binary = testsupport::reachable(TOOLCAGE_RELAY_BIN);
            }
            RelayProcess relay(relay_args(dir, tls.port()), {}, true, prefix, binary);
            int code = 0;
            std::string out = s_client(relay.port(), tls.port(), "localhost", as_nobody, &code);
            INFO(out);
            CHECK(out.find("HTTP/1.0 200 ok") != std::string::npos);
            CHECK(wait_for_log(relay, "\"server_name\":\"localhost\""));

            out = s_client(relay.port(), tls.port(), "other.example.com", as_nobody, &code);
            INFO(out);
            CHECK(code != 0);
            CHECK(out.find("HTTP/1.0 200") == std::string::npos);
            CHECK(out.find("alert access denied") != std::string::npos);
            CHECK(wait_for_log(relay, "the ClientHello names other.example.com, not the CONNECT "
                                      "host localhost"));

            out = s_client(relay.port(), tls.port(), "", as_nobody, &code);
            INFO(out);
            CHECK(code != 0);
            CHECK(out.find("HTTP/1.0 200") == std::string::npos);
            CHECK(wait_for_log(relay, "names no server (no SNI)"));
            std::string log = relay.log();
            CHECK(log.find("\"verdict\":\"deny\"") != std::string::npos);
            CHECK(log.find("\"server_name\":\"other.example.com\"") != std::string::npos);
        }
    }
}

TEST_CASE("--allow-missing-sni lets a handshake without a server name through, and only that") {
    TempDir dir;
    TlsServer tls(dir);
    RelayProcess relay(relay_args(dir, tls.port(), true));
    int code = 0;
    std::string out = s_client(relay.port(), tls.port(), "", false, &code);
    INFO(out);
    CHECK(out.find("HTTP/1.0 200 ok") != std::string::npos);
    CHECK(wait_for_log(relay, "--allow-missing-sni"));  // said loudly at start
    out = s_client(relay.port(), tls.port(), "other.example.com", false, &code);
    CHECK(out.find("HTTP/1.0 200") == std::string::npos);
    CHECK(wait_for_log(relay, "not the CONNECT host localhost"));
}

TEST_CASE("curl through the relay: the same name completes, a CONNECT fronting another is refused") {
    TempDir dir;
    TlsServer tls(dir);
    RelayProcess relay(relay_args(dir, tls.port()));
    std::string port = std::to_string(tls.port());
    std::string curl = "cd / && curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert " +
                       tls.cert() + " --proxy http://127.0.0.1:" + std::to_string(relay.port()) +
                       " --proxy-user toolcage:" + kToken + " ";
    int code = 0;
    CHECK(run_command(curl + "https://localhost:" + port + "/", &code) == "200");
    CHECK(code == 0);
    // --connect-to: curl's CONNECT names localhost (allowed), its handshake other.example.com.
    std::string out = run_command(curl + "--connect-to other.example.com:" + port +
                                      ":localhost:" + port + " https://other.example.com:" +
                                      port + "/ 2>&1",
                                  &code);
    INFO(out);
    CHECK(code == 35);  // CURLE_SSL_CONNECT_ERROR: the alert ended the handshake
    CHECK(wait_for_log(relay, "the ClientHello names other.example.com, not the CONNECT host "
                              "localhost"));
    CHECK(relay.log().find("\"host\":\"localhost\"") != std::string::npos);
}

TEST_CASE("a ClientHello split over many reads reaches the target unchanged, once whole") {
    RecordingServer target;
    TempDir dir;
    std::string hostport = "localhost:" + std::to_string(target.server.port());
    RelayProcess relay({"--allow", hostport, "--allow-private", "--token-file", write_token(dir)});
    std::string hello = tls_client_hello(std::string("localhost"));
    int fd = open_tunnel(relay.port(), hostport);
    size_t third = hello.size() / 3;
    send_all(fd, hello.substr(0, 5));  // the record header alone
    std::this_thread::sleep_for(50ms);
    send_all(fd, hello.substr(5, third));
    std::this_thread::sleep_for(50ms);
    CHECK(target.bytes().empty());  // nothing before the hello is whole
    send_all(fd, hello.substr(5 + third));
    for (int i = 0; i < 200 && target.bytes().size() < hello.size(); ++i)
        std::this_thread::sleep_for(10ms);
    CHECK(target.bytes() == hello);
    send_all(fd, "after");
    for (int i = 0; i < 200 && target.bytes().size() < hello.size() + 5; ++i)
        std::this_thread::sleep_for(10ms);
    CHECK(target.bytes() == hello + "after");
    ::close(fd);
}

TEST_CASE("nothing of a refused handshake reaches the target") {
    RecordingServer target;
    TempDir dir;
    std::string hostport = "localhost:" + std::to_string(target.server.port());
    RelayProcess relay({"--allow", hostport, "--allow-private", "--token-file", write_token(dir)});
    std::string hello = tls_client_hello(std::string("evil.example.net"));
    int fd = open_tunnel(relay.port(), hostport);
    send_all(fd, hello.substr(0, 20));
    std::this_thread::sleep_for(30ms);
    send_all(fd, hello.substr(20));
    bool eof = false;
    std::string answer = read_all(fd, 3000ms, &eof);
    ::close(fd);
    CHECK(eof);
    REQUIRE(answer.size() == 7);
    CHECK(answer[0] == 21);  // a TLS alert
    CHECK(wait_for_log(relay, "\"bytes_up\":0"));
    CHECK(target.server.accepted() == 1);  // dialled before the 200, as always
    CHECK(target.bytes().empty());
}

TEST_CASE("a ClientHello not complete in time is refused") {
    RecordingServer target;
    TempDir dir;
    std::string hostport = "localhost:" + std::to_string(target.server.port());
    RelayProcess relay({"--allow", hostport, "--allow-private", "--token-file", write_token(dir),
                        "--handshake-timeout-ms", "200"});
    std::string hello = tls_client_hello(std::string("localhost"));
    int fd = open_tunnel(relay.port(), hostport);
    send_all(fd, hello.substr(0, 10));
    auto start = std::chrono::steady_clock::now();
    bool eof = false;
    read_all(fd, 5000ms, &eof);
    ::close(fd);
    CHECK(eof);
    CHECK(std::chrono::steady_clock::now() - start < 3000ms);
    CHECK(wait_for_log(relay, "was not complete within 200 ms"));
    CHECK(target.bytes().empty());
}

TEST_CASE("a server that speaks first is heard before the client says anything") {
    ScriptedServer greeter([](int fd) {
        send_all(fd, "220 ready\r\n");
        read_all(fd, 1000ms);
    });
    TempDir dir;
    std::string hostport = "localhost:" + std::to_string(greeter.port());
    RelayProcess relay({"--allow", hostport, "--allow-private", "--token-file", write_token(dir)});
    int fd = open_tunnel(relay.port(), hostport);
    CHECK(read_until(fd, "220 ready\r\n", 2000ms) == "220 ready\r\n");
    ::close(fd);
}
