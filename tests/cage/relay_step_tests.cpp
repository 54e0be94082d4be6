// The relay of `toolcage run`, for real on loopback, in both network modes, as root and as
// nobody: curl in the cage reaches an allowed TLS server through it and nothing else; the
// token is required; the relay is no descendant of the caller and is gone after the step.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../relay/relay_harness.h"
#include "common/user_home.h"
#include "step_harness.h"
#include "tests/other_user.h"

using namespace steptest;
namespace fs = std::filesystem;

namespace {

// A TLS server for "localhost" and a policy whose relay allows it (and nothing else).
struct RelayFixture {
    Scratch s;
    relaytest::TempDir certs;
    relaytest::TlsServer tls{certs};
    std::string cert;
    explicit RelayFixture(const std::string& network) {
        cert = s.base + "/cert.pem";
        fs::copy_file(tls.cert(), cert);
        ::chmod(cert.c_str(), 0644);
        s.policy["cage"]["network"] = network;
        s.policy["relay"]["enabled"] = true;
        s.policy["relay"]["allow"] = {"localhost:" + std::to_string(tls.port())};
        s.policy["relay"]["allow_private"] = true;
    }
    std::string tls_url() const { return "https://localhost:" + std::to_string(tls.port()) + "/"; }
    Result caged(As who, const std::string& script) {
        return run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c", script},
                            {who, false, {}});
    }
};

// curl through the proxy the environment names; NO_PROXY lists localhost, hence --noproxy ''.
std::string via_relay(const std::string& extra) {
    return "curl -sS --max-time 10 --noproxy '' " + extra;
}

}  // namespace

TEST_CASE("caged curl reaches an allowed TLS server through the relay, and nothing else",
          "[cage][relay][net]") {
    std::string network = GENERATE("netns", "landlock");
    As who = GENERATE(As::root, As::nobody);
    INFO(network << " as " << name_of(who));
    RelayFixture fx(network);
    std::string port = std::to_string(fx.tls.port());

    // Through the relay: the page of openssl s_server -www.
    Result ok = fx.caged(who, via_relay("--cacert " + fx.cert + " " + fx.tls_url()));
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK(ok.out.find("s_server") != std::string::npos);

    // A name the policy does not allow: 403 from the relay.
    Result other = fx.caged(
        who, via_relay("-o /dev/null -w 'connect=%{http_connect}\\n' https://example.com/"));
    INFO(other.out);
    CHECK(other.status != 0);
    CHECK(other.out.find("connect=403") != std::string::npos);

    // Straight to the server's port, around the relay.
    Result direct =
        fx.caged(who, "curl -sS --max-time 5 --noproxy '*' -k " + fx.tls_url() + "; echo exit=$?");
    INFO(direct.out);
    CHECK(direct.out.find("exit=7") != std::string::npos);  // could not connect

    // The relay's port without the step's credentials: 407.
    Result anonymous =
        fx.caged(who,
                 "curl -sS --max-time 5 --noproxy '' -x \"http://127.0.0.1:${https_proxy##*:}\" -o "
                 "/dev/null -w 'connect=%{http_connect}\\n' -k " +
                     fx.tls_url());
    INFO(anonymous.out);
    CHECK(anonymous.out.find("connect=407") != std::string::npos);

    // The proxy variables name the relay, with a fresh token for each step.
    Result a = fx.caged(who, "echo \"$https_proxy $HTTP_PROXY $NO_PROXY\"");
    Result b = fx.caged(who, "echo \"$https_proxy\"");
    INFO(a.out << b.out);
    CHECK(a.out.find("http://toolcage:") != std::string::npos);
    CHECK(a.out.find("127.0.0.1") != std::string::npos);
    if (network == "netns") CHECK(a.out.find("@127.0.0.1:3128") != std::string::npos);
    CHECK(a.out.substr(0, a.out.find(' ')) != b.out.substr(0, b.out.find('\n')));
}

TEST_CASE("a caged handshake naming another host than its CONNECT is refused, and the step is told",
          "[cage][relay][net]") {
    As who = GENERATE(As::root, As::nobody);
    INFO("as " << name_of(who));
    RelayFixture fx("netns");
    std::string port = std::to_string(fx.tls.port());
    // curl's CONNECT names the allowed localhost; its handshake names other.example.com.
    Result fronted = fx.caged(
        who, via_relay("--cacert " + fx.cert + " --connect-to other.example.com:" + port +
                       ":localhost:" + port + " https://other.example.com:" + port + "/"));
    INFO(fronted.out);
    CHECK(fronted.status == 35);  // CURLE_SSL_CONNECT_ERROR: the relay's alert
    CHECK(fronted.out.find("alert access denied") != std::string::npos);
    CHECK(fronted.out.find("s_server") == std::string::npos);
    CHECK(fronted.out.find("names other.example.com, not the CONNECT host localhost") !=
          std::string::npos);
    // The same curl naming the host it CONNECTs to still gets the page.
    Result ok = fx.caged(who, via_relay("--cacert " + fx.cert + " " + fx.tls_url()));
    CHECK(ok.out.find("s_server") != std::string::npos);
}

TEST_CASE("the relay is not a descendant of the caller, hides its token, and ends with the step",
          "[cage][relay][lifetime]") {
    std::string network = GENERATE("netns", "landlock");
    As who = GENERATE(As::root, As::nobody);
    INFO(network << " as " << name_of(who));
    RelayFixture fx(network);
    std::string up = fx.s.ws + "/up", go = fx.s.ws + "/go";
    Background step(fx.s,
                    {"run", "--policy", fx.s.policy_file(), "--", "/bin/sh", "-c",
                     "touch " + up + "; while [ ! -e " + go + " ]; do sleep 0.02; done"},
                    {who, false, {}});
    REQUIRE(wait_for_file(up, 10000));

    // Found by its allow entry, which only this test's relay names (its log is toolcage's
    // state directory's, shared by every step of the user).
    const std::string marker = "localhost:" + std::to_string(fx.tls.port());
    auto found = processes_with(marker);
    REQUIRE(found.size() == 1);
    pid_t relay = found[0];
    std::string cmd = cmdline_of(relay);
    INFO(cmd);
    CHECK(cmd.find("--detach") != std::string::npos);
    pid_t parent = parent_of(relay);
    INFO("relay " << relay << ", parent " << parent << ", toolcage " << step.pid());
    CHECK(parent != step.pid());
    CHECK_FALSE(is_ancestor(step.pid(), relay));
    CHECK_FALSE(is_ancestor(::getpid(), relay));  // this test stands for the agent
    if (parent != 1) WARN("the relay's parent is a subreaper above the caller: pid " << parent);

    // The token file was removed once the relay had read it: the step never sees it.
    auto at = cmd.find("--token-file ");
    REQUIRE(at != std::string::npos);
    std::string token_file = cmd.substr(at + 13, cmd.find(' ', at + 13) - at - 13);
    CHECK_FALSE(fs::exists(token_file));
    CHECK_FALSE(fs::exists(fs::path(token_file).parent_path()));

    std::ofstream(go).put('\n');
    Result r = step.wait();
    INFO(r.out);
    CHECK(r.status == 0);
    // Gone (or a zombie of an init that does not reap) shortly after the step.
    bool gone = false;
    for (int i = 0; i < 300 && !gone; ++i) {
        char st = state_of(relay);
        gone =
            st == 0 || st == 'Z' || cmdline_of(relay).find(marker) == std::string::npos;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(gone);
    std::ifstream log(testsupport::state_dir_for(testsupport::case_uid(who == As::nobody)) + "/relay.jsonl");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    CHECK(text.find("the watched step ended") != std::string::npos);
}

TEST_CASE("a relay that cannot start stops the step before it runs", "[cage][relay]") {
    std::string network = GENERATE("netns", "landlock");
    INFO(network);
    Scratch s;
    s.policy["cage"]["network"] = network;
    s.policy["relay"]["enabled"] = true;
    s.policy["relay"]["allow"] = {"a.test"};
    s.policy["relay"]["upstream"] = "http://proxy.invalid:3128/path";  // the relay wants no path
    Result r = run_toolcage(
        s, {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c", "touch " + s.ws + "/ran"});
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find("toolcage-relay") != std::string::npos);
    CHECK(r.out.find("--upstream") != std::string::npos);
    CHECK_FALSE(fs::exists(s.ws + "/ran"));

    s.policy["relay"]["upstream"] = "";
    s.policy["relay"]["allow"] = nlohmann::json::array();
    Result none = run_toolcage(s, {"run", "--policy", s.policy_file(), "--", "/bin/true"});
    INFO(none.out);
    CHECK(none.status == 2);
    CHECK(none.out.find("relay.allow") != std::string::npos);
}
