#include "cage/relay_launch.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "cage/settings/npm_config.h"
#include "common/error.h"
#include "common/policy_schema.h"
#include "common/text.h"
#include "common/user_home.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kRelayStartTimeout = std::chrono::seconds(10);

void note(const std::string& line) {
    std::fprintf(stderr, "toolcage run: note: %s\n", line.c_str());
}

// Reads `fd` until EOF, `limit` bytes, or the deadline. False on timeout.
bool read_until_eof(int fd, std::string& out, Clock::time_point deadline,
                    std::size_t limit = 64 * 1024) {
    char buf[4096];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return true;
        out.append(buf, static_cast<std::size_t>(got));
        if (out.size() >= limit) return true;
    }
}

struct Pipe {
    int r = -1, w = -1;
    Pipe() {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) throw Error(syscall_error("pipe2(O_CLOEXEC)", errno));
        r = p[0];
        w = p[1];
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    ~Pipe() {
        close_read();
        close_write();
    }
    void close_read() {
        if (r >= 0) ::close(r);
        r = -1;
    }
    void close_write() {
        if (w >= 0) ::close(w);
        w = -1;
    }
};

// In a forked child: the given fds onto 0..N, every other fd closed, signals as exec expects.
// `fds[i]` becomes fd i (-1: /dev/null).
void child_fds_and_signals(const std::vector<int>& fds) {
    // Every source is first copied above the targets, so that no dup2() overwrites another.
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) null = ::fcntl(null, F_DUPFD_CLOEXEC, 64);
    std::vector<int> high;
    for (int fd : fds) high.push_back(fd >= 0 ? ::fcntl(fd, F_DUPFD_CLOEXEC, 64) : -1);
    for (std::size_t i = 0; i < high.size(); ++i)
        ::dup2(high[i] >= 0 ? high[i] : null, static_cast<int>(i));
    ::syscall(SYS_close_range, static_cast<unsigned>(high.size()), ~0U, 0U);
    // The supervisor may have blocked its signals already; exec keeps the mask.
    for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (auto& s : v) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

std::string random_token() {
    unsigned char bytes[16];
    std::size_t done = 0;
    while (done < sizeof bytes) {
        ssize_t n = ::getrandom(bytes + done, sizeof bytes - done, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(syscall_error("getrandom(16 bytes) for the relay's token", errno));
        done += static_cast<std::size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string t;
    for (unsigned char b : bytes) {
        t += hex[b >> 4];
        t += hex[b & 15];
    }
    return t;
}

// The token, and the upstream proxy's URL with its credentials, in files of their own (0600)
// in a directory of its own (0700): never on the relay's command line, which any process can
// read in /proc. The relay reads them when it starts; they are removed once it announced its port.
struct SecretFiles {
    std::string dir;
    std::vector<std::string> paths;
    SecretFiles() = default;
    SecretFiles(const SecretFiles&) = delete;
    SecretFiles& operator=(const SecretFiles&) = delete;
    ~SecretFiles() { remove(); }
    void make_dir(const std::string& base) {
        std::string tmpl = base + "/toolcage-relay-XXXXXX";
        if (!::mkdtemp(tmpl.data()))
            throw Error(syscall_error("mkdtemp(\"" + tmpl + "\") for the relay's token", errno) +
                        "; make " + base + " writable, or set XDG_RUNTIME_DIR");
        dir = tmpl;
    }
    std::string write(const std::string& name, const std::string& content) {
        std::string path = dir + "/" + name;
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) throw Error(syscall_error("open(\"" + path + "\", O_CREAT | O_EXCL)", errno));
        paths.push_back(path);
        std::string line = content + "\n";
        ssize_t n = ::write(fd, line.data(), line.size());
        int err = errno;
        ::close(fd);
        if (n != static_cast<ssize_t>(line.size()))
            throw Error(syscall_error("write(\"" + path + "\")", n < 0 ? err : EIO));
        return path;
    }
    void remove() {
        for (const auto& p : paths) ::unlink(p.c_str());
        if (!dir.empty()) ::rmdir(dir.c_str());
        paths.clear();
        dir.clear();
    }
};

// One step's relay: its arguments, token and lifeline, from the start to stop().
struct RelayState {
    std::string binary;
    std::string log_path;
    std::vector<std::string> args;  // after the fds and the listening socket
    SecretFiles secrets;
    int lifeline_read = -1;   // the relay's --watch-fd
    int lifeline_write = -1;  // held by the supervisor; closing it (or dying) ends the relay
    ~RelayState() { stop(); }
    void stop() {
        for (int* fd : {&lifeline_read, &lifeline_write})
            if (*fd >= 0) {
                ::close(*fd);
                *fd = -1;
            }
        secrets.remove();
    }
};

// Starts toolcage-relay --detach and returns the port it announces. The relay double-forks and
// calls setsid(); the process we fork here exits once the relay is on its own, so the relay
// is reparented to init (or the nearest subreaper above us), never to the step.
std::uint16_t spawn_relay(RelayState& st, int listen_fd) {
    Pipe ready, err;
    std::vector<std::string> argv = {st.binary, "--detach", "--ready-fd", "3", "--watch-fd", "4"};
    if (listen_fd >= 0) {
        argv.insert(argv.end(), {"--listen-fd", "5"});
    } else {
        argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
    }
    argv.insert(argv.end(), st.args.begin(), st.args.end());
    std::vector<std::string> envv = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
    auto cargv = c_strings(argv);
    auto cenv = c_strings(envv);

    pid_t pid = ::fork();
    if (pid < 0) throw Error(syscall_error("fork() for toolcage-relay", errno));
    if (pid == 0) {
        std::vector<int> fds = {-1, -1, err.w, ready.w, st.lifeline_read};
        if (listen_fd >= 0) fds.push_back(listen_fd);
        child_fds_and_signals(fds);
        ::execve(cargv[0], cargv.data(), cenv.data());
        std::string msg = syscall_error("execve(\"" + st.binary + "\")", errno) + "\n";
        ssize_t n = ::write(2, msg.data(), msg.size());
        (void)n;
        ::_exit(127);
    }
    ready.close_write();
    err.close_write();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string where = "toolcage-relay (" + st.binary + ")";
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string text;
        read_until_eof(err.r, text, Clock::now() + std::chrono::seconds(1));
        throw Error(where + " could not start: " +
                    (text.empty() ? "exit status " + std::to_string(status) : trim(text)));
    }
    std::string line;
    read_until_eof(ready.r, line, Clock::now() + kRelayStartTimeout, 16);
    unsigned long port = 0;
    if (line.empty() || line.back() != '\n' ||
        (port = std::strtoul(line.c_str(), nullptr, 10)) == 0 || port > 65535)
        throw Error(where + " did not announce its port within " +
                    std::to_string(kRelayStartTimeout.count()) + " s" +
                    (st.log_path.empty() ? std::string() : " (see " + st.log_path + ")"));
    return static_cast<std::uint16_t>(port);
}

// `toolcage-relay --make-ca DIR`: the CA exists before the step's environment is built (in a
// private network the relay itself starts only after the fork). Returns the CA's PEM.
std::string make_inspection_ca(const std::string& binary, const std::string& dir) {
    Pipe err;
    std::vector<std::string> argv = {binary, "--make-ca", dir};
    std::vector<std::string> envv = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
    auto cargv = c_strings(argv);
    auto cenv = c_strings(envv);
    pid_t pid = ::fork();
    if (pid < 0) throw Error(syscall_error("fork() for toolcage-relay --make-ca", errno));
    if (pid == 0) {
        child_fds_and_signals({-1, -1, err.w});
        ::execve(cargv[0], cargv.data(), cenv.data());
        ::_exit(127);
    }
    err.close_write();
    std::string text;
    read_until_eof(err.r, text, Clock::now() + kRelayStartTimeout);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw Error("relay.inspect: toolcage's inspection CA could not be made in " + dir + ": " +
                    (text.empty() ? "exit status " + std::to_string(status) : trim(text)));
    std::ifstream in(dir + "/ca.pem");
    std::ostringstream pem;
    pem << in.rdbuf();
    if (!in || pem.str().find("BEGIN CERTIFICATE") == std::string::npos)
        throw Error("relay.inspect: " + dir + "/ca.pem holds no certificate; remove " + dir +
                    " to make a new CA");
    return pem.str();
}

// The relay's --inspect-file: the policy's inspection fields, each credential with the
// placeholder the step gets. The secrets stay in their files: the relay reads them itself.
std::string inspect_file_json(
    const RelayPolicy& policy, const std::string& ca_dir,
    const std::vector<std::pair<std::string, std::string>>& placeholders) {
    nlohmann::json creds = relay_credentials_json(policy.credentials);
    for (std::size_t i = 0; i < creds.size(); ++i) creds[i]["placeholder"] = placeholders[i].second;
    return nlohmann::json{{"ca_dir", ca_dir},
                          {"inspect", policy.inspect},
                          {"upstream_ca", policy.upstream_ca},
                          {"credentials", creds},
                          {"requests", relay_requests_json(policy.requests)}}
        .dump();
}

}  // namespace

std::optional<std::string> registry_allow_entry(const std::string& url) {
    auto sep = url.find("://");
    if (sep == std::string::npos) return std::nullopt;
    std::string scheme = lower(url.substr(0, sep));
    if (scheme != "https" && scheme != "http") return std::nullopt;
    std::string rest = url.substr(sep + 3);
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
    std::string host, port;
    if (!rest.empty() && rest[0] == '[') {
        auto close = rest.find(']');
        if (close == std::string::npos) return std::nullopt;
        host = rest.substr(0, close + 1);
        std::string after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return std::nullopt;
            port = after.substr(1);
        }
    } else {
        auto colon = rest.rfind(':');
        host = rest.substr(0, colon);
        if (colon != std::string::npos) port = rest.substr(colon + 1);
        for (char c : host)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-')
                return std::nullopt;
    }
    if (host.empty() || host == "[]") return std::nullopt;
    host = lower(host);
    if (!port.empty()) {
        if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        unsigned long p = std::stoul(port);
        if (p == 0 || p > 65535) return std::nullopt;
        port = std::to_string(p);
    }
    if (port.empty()) return scheme == "https" ? host : host + ":80";
    if (scheme == "https" && port == "443") return host;
    return host + ":" + port;
}

std::vector<std::string> expand_relay_allow(
    const std::vector<std::string>& allow,
    const std::function<std::optional<std::string>()>& npm_registry,
    std::vector<std::string>& notes) {
    std::vector<std::string> out;
    bool asked = false;
    std::optional<std::string> registry;
    for (const auto& entry : allow) {
        if (entry != "{npm_registry}") {
            out.push_back(entry);
            continue;
        }
        if (!asked) {
            asked = true;
            std::optional<std::string> url = npm_registry ? npm_registry() : std::nullopt;
            if (url) registry = registry_allow_entry(*url);
            if (!registry)
                notes.push_back("relay.allow: {npm_registry} dropped: " +
                                (url ? "the user's npm registry setting is \"" + *url +
                                           "\", not an http(s) URL "
                                           "with a host name (a ${VAR} in it is not read)"
                                     : std::string("no npm registry setting could be read")));
        }
        if (registry) out.push_back(*registry);
    }
    return out;
}

std::optional<std::string> npm_config_registry() {
    return npm_registry_from_files(user_home());
}

RelayLaunchConfig relay_launch_defaults() {
    RelayLaunchConfig c;
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    c.relay_binary = ec ? "toolcage-relay" : (self.parent_path() / "toolcage-relay").string();
    // Nothing here comes from the launcher's environment, which the agent's shell sets: the
    // log in toolcage's state directory, no upstream but the policy's, the registry from the
    // user's own npmrc, the token under the user's runtime directory.
    if (std::string state = state_dir(true); !state.empty()) c.log_path = state + "/relay.jsonl";
    c.npm_registry = npm_config_registry;
    const std::string runtime = "/run/user/" + std::to_string(::getuid());
    c.token_base = private_dir_problem(runtime).empty() ? runtime : "/tmp";
    if (std::string state = state_dir(true); !state.empty()) c.ca_dir = state + "/relay-ca";
    return c;
}

RelayStarter make_relay_starter(RelayLaunchConfig config) {
    return [config](const RelayPolicy& policy, std::uint16_t inside_port) {
        if (::access(config.relay_binary.c_str(), X_OK) != 0)
            throw Error(syscall_error("toolcage-relay at " + config.relay_binary, errno) +
                        "; install toolcage-relay beside toolcage, or set relay.enabled to false");
        std::vector<std::string> notes;
        std::vector<std::string> allow =
            expand_relay_allow(policy.allow, config.npm_registry, notes);
        for (const auto& n : notes) note(n);
        if (allow.empty())
            throw Error(
                "relay.allow: no host to allow; name the hosts the cage may reach in the "
                "policy's relay.allow, or set relay.enabled to false");

        auto st = std::make_shared<RelayState>();
        st->binary = config.relay_binary;
        st->log_path = config.log_path;
        const std::string token = random_token();
        st->secrets.make_dir(config.token_base);
        const std::string token_path = st->secrets.write("token", token);
        int life[2];
        if (::pipe2(life, O_CLOEXEC) != 0)
            throw Error(syscall_error("pipe2(O_CLOEXEC) for the relay's lifeline", errno));
        st->lifeline_read = life[0];
        st->lifeline_write = life[1];

        auto& a = st->args;
        a = {"--token-file", token_path, "--max-tunnels", std::to_string(policy.max_tunnels)};
        for (const auto& entry : allow) a.insert(a.end(), {"--allow", entry});
        if (policy.allow_private) a.push_back("--allow-private");
        if (!policy.require_sni) a.push_back("--allow-missing-sni");
        for (const auto& range : policy.allow_ranges) a.insert(a.end(), {"--allow-range", range});
        // The policy's upstream only: a proxy variable of the launcher's is the agent's shell's.
        const std::string& upstream = policy.upstream;
        if (!upstream.empty())
            a.insert(a.end(), {"--upstream-file", st->secrets.write("upstream", upstream)});
        std::string ca_pem;
        std::vector<std::pair<std::string, std::string>> placeholders;
        if (!policy.inspect.empty()) {
            if (config.ca_dir.empty())
                throw Error(
                    "relay.inspect: toolcage's state directory cannot be reached, so there is "
                    "no place for its CA; make " +
                    primary_state_dir() + " writable, or drop relay.inspect");
            ca_pem = make_inspection_ca(config.relay_binary, config.ca_dir);
            for (const auto& c : policy.credentials)
                placeholders.emplace_back(c.placeholder_env,
                                          "toolcage-placeholder-" + random_token());
            a.insert(a.end(), {"--inspect-file",
                               st->secrets.write("inspect", inspect_file_json(policy, config.ca_dir,
                                                                              placeholders))});
        }
        const std::string step_id =
            config.step_id.empty() ? random_token().substr(0, 16) : config.step_id;
        std::uintmax_t log_from = 0;
        if (!config.log_path.empty()) {
            a.insert(a.end(), {"--log", config.log_path, "--step", step_id});
            std::error_code size_ec;
            log_from = std::filesystem::file_size(config.log_path, size_ec);
            if (size_ec) log_from = 0;
        }

        auto start = [st](int listen_fd) {
            std::uint16_t port = spawn_relay(*st, listen_fd);
            // The relay has read the token and holds the lifeline's read end.
            st->secrets.remove();
            ::close(st->lifeline_read);
            st->lifeline_read = -1;
            return port;
        };
        RelayHandle h;
        h.port = inside_port ? inside_port : start(-1);
        if (inside_port) h.serve = [start](int listen_fd) { start(listen_fd); };
        h.url = "http://toolcage:" + token + "@127.0.0.1:" + std::to_string(h.port);
        h.stop = [st] { st->stop(); };
        h.log_path = config.log_path;
        h.log_from = log_from;
        h.step_id = step_id;
        h.ca_pem = std::move(ca_pem);
        h.placeholders = std::move(placeholders);
        return h;
    };
}

}  // namespace toolcage::cage
