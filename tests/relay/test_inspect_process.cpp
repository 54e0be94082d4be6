// toolcage-relay inspecting a host, for real on loopback: curl trusting only toolcage's CA gets
// the page of a local TLS server through it; the relay verifies that server against its own trust
// store and relay.upstream_ca, never against $SSL_CERT_FILE; the CA's key is the user's alone.
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "relay_harness.h"

using namespace relaytest;

namespace {

std::string inspect_file(const TempDir& d, int port, const std::string& upstream_ca) {
    const std::string path = d.file("inspect.json");
    std::ofstream(path) << nlohmann::json{{"ca_dir", d.file("ca")},
                                          {"inspect", {"localhost:" + std::to_string(port)}},
                                          {"upstream_ca", upstream_ca},
                                          {"credentials", nlohmann::json::array()},
                                          {"requests", nlohmann::json::object()}}
                               .dump();
    return path;
}

std::string curl(const TempDir& d, int relay_port, int port, const std::string& extra) {
    int code = 0;
    return run_command("curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:" +
                           std::to_string(relay_port) + " --cacert " + d.file("ca/ca.pem") + " " +
                           extra + " https://localhost:" + std::to_string(port) + "/ 2>&1",
                       &code);
}

}  // namespace

TEST_CASE("an inspected host is served with a leaf of toolcage's CA and its server verified",
          "[relay][inspect][net]") {
    TempDir d;
    TlsServer tls(d);
    RelayProcess relay({"--allow", "localhost:" + std::to_string(tls.port()), "--allow-private",
                        "--inspect-file", inspect_file(d, tls.port(), tls.cert())});
    std::string page = curl(d, relay.port(), tls.port(), "--http2 -v");
    INFO(page);
    CHECK(page.find("s_server") != std::string::npos);
    CHECK(page.find("issuer: O=toolcage; CN=toolcage inspection CA") != std::string::npos);
    CHECK(page.find("ALPN: server accepted http/1.1") != std::string::npos);
    struct stat st {};
    REQUIRE(::stat(d.file("ca/ca.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(relay.log().find("\"event\":\"request\"") != std::string::npos);
}

TEST_CASE("an inspected host's server is not trusted on $SSL_CERT_FILE's word",
          "[relay][inspect][net]") {
    TempDir d;
    TlsServer tls(d);
    // The relay's environment names the server's certificate; only relay.upstream_ca may.
    ::setenv("SSL_CERT_FILE", tls.cert().c_str(), 1);
    RelayProcess relay({"--allow", "localhost:" + std::to_string(tls.port()), "--allow-private",
                        "--inspect-file", inspect_file(d, tls.port(), "")});
    ::unsetenv("SSL_CERT_FILE");
    std::string page = curl(d, relay.port(), tls.port(), "-i");
    INFO(page);
    CHECK(page.find("HTTP/1.1 502") != std::string::npos);
    CHECK(page.find("failed TLS verification") != std::string::npos);
    CHECK(page.find("relay.upstream_ca") != std::string::npos);
    CHECK(page.find("s_server") == std::string::npos);
}

TEST_CASE("toolcage-relay --make-ca makes the CA once, its key 0600", "[relay][inspect]") {
    TempDir d;
    int code = 0;
    run_command(std::string(TOOLCAGE_RELAY_BIN) + " --make-ca " + d.file("ca"), &code);
    REQUIRE(code == 0);
    std::ifstream first(d.file("ca/ca.pem"));
    std::string pem((std::istreambuf_iterator<char>(first)), std::istreambuf_iterator<char>());
    run_command(std::string(TOOLCAGE_RELAY_BIN) + " --make-ca " + d.file("ca"), &code);
    std::ifstream second(d.file("ca/ca.pem"));
    std::string again((std::istreambuf_iterator<char>(second)), std::istreambuf_iterator<char>());
    CHECK(pem == again);
    std::string text = run_command("openssl x509 -noout -text -in " + d.file("ca/ca.pem"), &code);
    CHECK(text.find("CA:TRUE") != std::string::npos);
    CHECK(text.find("prime256v1") != std::string::npos);
    struct stat st {};
    REQUIRE(::stat(d.file("ca").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("a credential whose secret file cannot be read stops the relay before it listens",
          "[relay][inspect]") {
    TempDir d;
    const std::string path = d.file("inspect.json");
    std::ofstream(path) << nlohmann::json{{"ca_dir", d.file("ca")},
                                          {"inspect", {"git.example.com"}},
                                          {"credentials",
                                           {{{"host", "git.example.com"},
                                             {"secret_file", d.file("missing")},
                                             {"as", "bearer"},
                                             {"placeholder_env", "GIT_TOKEN"},
                                             {"placeholder",
                                              "toolcage-placeholder-0123456789abcdef"}}}}}
                               .dump();
    RelayProcess relay({"--allow", "git.example.com", "--inspect-file", path}, {}, false);
    int status = 0;
    REQUIRE(relay.wait_exit(std::chrono::seconds(10), &status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(relay.stderr_text().find("relay.credentials/0/secret_file") != std::string::npos);
    CHECK(relay.stderr_text().find(d.file("missing")) != std::string::npos);
}
