// TLS inspection through `toolcage run`, for real on loopback, as root and as nobody: a TLS git
// server (python3's http.server running `git http-backend`, signed by a test CA the relay trusts
// through relay.upstream_ca) that wants a token; the caged git clone works with the token the
// relay injects while the step holds only a placeholder; a push is refused by a read-only rule
// that the step is told about; the placeholder sent to another inspected host is refused.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "../relay/relay_harness.h"
#include "step_harness.h"
#include "tests/other_user.h"

using namespace steptest;
namespace fs = std::filesystem;

namespace {

const std::string kSecret = "s3cret-token-4b1d";

void sh(const std::string& cmd) {
    int code = 0;
    std::string out = relaytest::run_command("(" + cmd + ") 2>&1", &code);
    INFO(cmd << "\n" << out);
    REQUIRE(code == 0);
}

// A test CA and a server certificate for "localhost" it signs, made with openssl.
void make_certs(const std::string& d) {
    sh("cd " + d +
       " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key "
       "-out ca.pem "
       "-days 1 -subj /CN=inspection-test-ca -addext basicConstraints=critical,CA:TRUE "
       "-addext keyUsage=critical,keyCertSign"
       " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out "
       "srv.csr "
       "-subj /CN=localhost"
       " && printf 'subjectAltName=DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > ext.cnf"
       " && openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem "
       "-days 1 "
       "-extfile ext.cnf");
}

// A bare repository with one commit, served for push as well (only the relay's rule refuses it).
void make_repo(const std::string& d) {
    sh("git init -q --bare -b main " + d + "/git/repo.git && git -C " + d +
       "/git/repo.git config http.receivepack true && git init -q -b main " + d + "/seed && cd " +
       d +
       "/seed && echo hello > README && git add README && git -c user.name=t -c user.email=t@t "
       "commit -q -m "
       "first && git push -q " +
       d + "/git/repo.git main");
}

class GitServer {
  public:
    GitServer(const std::string& d, const std::string& name) {
        const std::string port_file = d + "/" + name + ".port";
        pid_ = ::fork();
        if (pid_ == 0) {
            ::setpgid(0, 0);
            std::string script =
                std::string(TOOLCAGE_SOURCE_DIR) + "/tests/relay/servers/git_https_server.py";
            ::execl("/usr/bin/python3", "python3", script.c_str(), (d + "/srv.pem").c_str(),
                    (d + "/srv.key").c_str(), (d + "/git").c_str(), kSecret.c_str(),
                    port_file.c_str(), nullptr);
            ::_exit(127);
        }
        REQUIRE(wait_for_file(port_file, 10000));
        std::ifstream(port_file) >> port_;
    }
    ~GitServer() {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    int port() const { return port_; }

  private:
    pid_t pid_ = -1;
    int port_ = 0;
};

struct InspectFixture {
    Scratch s;
    relaytest::TempDir d;  // the certificates, the repository, the secret: no step's grant
    std::optional<GitServer> git, other;
    std::string git_host, other_host;
    InspectFixture() {
        ::chmod(d.path.c_str(), 0755);
        make_certs(d.path);
        make_repo(d.path);
        std::ofstream(d.file("secret")) << kSecret << "\n";
        git.emplace(d.path, "git");
        other.emplace(d.path, "other");
        // Readable by nobody's relay; the cage is what keeps them from the step.
        open_to_everyone(d.path);
        ::chmod(d.path.c_str(), 0755);
        git_host = "localhost:" + std::to_string(git->port());
        other_host = "localhost:" + std::to_string(other->port());
        auto& r = s.policy["relay"];
        r["enabled"] = true;
        r["allow_private"] = true;
        r["allow"] = {git_host, other_host};
        r["inspect"] = {git_host, other_host};
        r["upstream_ca"] = d.file("ca.pem");
        r["credentials"] = {{{"host", git_host},
                             {"secret_file", d.file("secret")},
                             {"as", "bearer"},
                             {"placeholder_env", "GIT_TOKEN"}}};
        r["requests"] = {
            {git_host, {{"deny", {{{"method", "POST"}, {"path", "/*/git-receive-pack"}}}}}}};
        s.policy["cage"]["network"] = "netns";
    }
    Result caged(As who, const std::string& script) {
        // NO_PROXY names localhost: unset, so git and curl use the relay for the test's server.
        return run_toolcage(s,
                            {"run", "--policy", s.policy_file(), "--", "/bin/sh", "-c",
                             "unset NO_PROXY no_proxy; " + script},
                            {who, false, {}});
    }
};

}  // namespace

TEST_CASE("an inspected git server gets the relay's token; the step holds only a placeholder",
          "[cage][relay][inspect]") {
    As who = GENERATE(As::root, As::nobody);
    INFO("as " << name_of(who));
    InspectFixture fx;
    const std::string url = "https://" + fx.git_host + "/repo.git";

    Result clone = fx.caged(
        who, "git clone -q " + url + " " + fx.s.ws + "/clone && cat " + fx.s.ws +
                 "/clone/README && echo \"token=$GIT_TOKEN\" && cat /proc/self/environ | tr '\\0' "
                 "'\\n' | grep '^GIT_TOKEN=' && echo \"ca=$SSL_CERT_FILE\"");
    INFO(clone.out);
    CHECK(clone.status == 0);
    CHECK(clone.out.find("hello") != std::string::npos);
    CHECK(clone.out.find("token=toolcage-placeholder-") != std::string::npos);
    CHECK(clone.out.find("GIT_TOKEN=toolcage-placeholder-") != std::string::npos);
    CHECK(clone.out.find(kSecret) == std::string::npos);
    CHECK(clone.out.find("toolcage-ca-bundle.pem") != std::string::npos);

    // A push: the relay's read-only rule refuses its POST, and the step is told which rule.
    Result push = fx.caged(who, "cd " + fx.s.ws +
                                    "/clone && echo more >> README && git -c user.name=t -c "
                                    "user.email=t@t commit -qam second && git push -q origin main");
    INFO(push.out);
    CHECK(push.status != 0);
    CHECK(push.out.find("relay.requests[\"" + fx.git_host + "\"].deny[0]") != std::string::npos);
    CHECK(push.out.find(kSecret) == std::string::npos);
    int code = 0;
    std::string count = relaytest::run_command(
        "git -C " + fx.d.path + "/git/repo.git rev-list --count main", &code);
    CHECK(count == "1\n");

    // The placeholder sent to another inspected host: 403 from the relay, naming the variable.
    Result leak = fx.caged(who,
                           "curl -sS --max-time 10 -H \"Authorization: Bearer $GIT_TOKEN\" -w "
                           "'status=%{http_code}\\n' https://" +
                               fx.other_host + "/repo.git/info/refs");
    INFO(leak.out);
    CHECK(leak.out.find("status=403") != std::string::npos);
    CHECK(leak.out.find("placeholder of $GIT_TOKEN") != std::string::npos);
    CHECK(leak.out.find(kSecret) == std::string::npos);

    // In a request's body: refused before the body goes on, naming the variable.
    Result body = fx.caged(who, "curl -sS --max-time 10 --data \"token=$GIT_TOKEN\" -w "
                                "'status=%{http_code}\\n' https://" +
                                    fx.other_host + "/repo.git/info/refs");
    INFO(body.out);
    CHECK(body.out.find("status=403") != std::string::npos);
    CHECK(body.out.find("placeholder of $GIT_TOKEN") != std::string::npos);
    CHECK(body.out.find("request's body") != std::string::npos);

    // The same curl without it reaches the other server (which wants the token: 401 from it).
    Result plain =
        fx.caged(who, "curl -sS --max-time 10 -o /dev/null -w 'status=%{http_code}\\n' https://" +
                          fx.other_host + "/repo.git/info/refs");
    INFO(plain.out);
    CHECK(plain.out.find("status=401") != std::string::npos);

    // Nothing the relay logged holds the secret.
    std::ifstream log(testsupport::state_dir_for(testsupport::case_uid(who == As::nobody)) +
                      "/relay.jsonl");
    std::string all((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    CHECK(all.find(kSecret) == std::string::npos);
}

TEST_CASE("a secret file inside a step's grant is refused before the step runs",
          "[cage][relay][inspect]") {
    InspectFixture fx;
    const std::string inside = fx.s.base + "/secret";
    std::ofstream(inside) << kSecret << "\n";
    fx.s.policy["relay"]["credentials"][0]["secret_file"] = inside;
    Result r = fx.caged(As::root, "echo step-ran");
    INFO(r.out);
    CHECK(r.status != 0);
    CHECK(r.out.find("step-ran") == std::string::npos);
    CHECK(r.out.find("/relay/credentials/0/secret_file") != std::string::npos);
}

TEST_CASE("a push of more than git's post buffer goes chunked through an inspected host",
          "[cage][relay][inspect]") {
    As who = GENERATE(As::root, As::nobody);
    INFO("as " << name_of(who));
    InspectFixture fx;
    fx.s.policy["relay"].erase("requests");
    // 2 MiB of random bytes: over http.postBuffer (1 MiB), so git sends the pack chunked, on a
    // keep-alive connection after its discovery request.
    Result push = fx.caged(who, "git clone -q https://" + fx.git_host + "/repo.git " + fx.s.ws +
                                    "/clone && cd " + fx.s.ws +
                                    "/clone && head -c 2097152 /dev/urandom > blob && git add blob "
                                    "&& git -c user.name=t -c "
                                    "user.email=t@t commit -qm big && GIT_TRACE_CURL=1 "
                                    "GIT_TRACE_CURL_NO_DATA=1 git push -q origin main "
                                    "2>&1 | grep -ci 'transfer-encoding: chunked'");
    INFO(push.out);
    CHECK(push.status == 0);
    int code = 0;
    std::string count = relaytest::run_command(
        "git -C " + fx.d.path + "/git/repo.git rev-list --count main", &code);
    CHECK(count == "2\n");
}
