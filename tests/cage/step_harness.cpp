#include "step_harness.h"
#include "tests/other_user.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace steptest {

const char* name_of(As who) {
    return who == As::root ? "root" : "nobody";
}

Scratch::Scratch() {
    char tmpl[] = "/tmp/toolcage-net-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    base = tmpl;
    ::chmod(tmpl, 0755);
    ws = base + "/ws";
    state = base + "/state";
    for (const auto& d : {ws, state}) {
        fs::create_directories(d);
        ::chmod(d.c_str(), 0777);
    }
    std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/default.json");
    policy = nlohmann::json::parse(f, nullptr, true, true);
    policy["name"] = "network-test";
    policy["cage"]["read"].push_back(base);
}

Scratch::~Scratch() {
    std::error_code ec;
    fs::remove_all(base, ec);
}

std::string Scratch::policy_file() const {
    std::string p = base + "/policy.json";
    std::ofstream(p) << policy.dump(2);
    ::chmod(p.c_str(), 0644);
    return p;
}

namespace {

// As a container runtime's default profile does: no new user namespace, by either call.
void refuse_user_namespaces() {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) _exit(96);
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc != 0 || ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(ctx) != 0)
        _exit(96);
    seccomp_release(ctx);
}

// As a sandbox that refuses signalfd: the supervisor then waits with sigtimedwait.
void refuse_signalfd() {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) _exit(96);
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(signalfd4), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(signalfd), 0);
    if (rc != 0 || ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(ctx) != 0) _exit(96);
    seccomp_release(ctx);
}

pid_t spawn(const Scratch& s, const std::vector<std::string>& args, const Launch& how, int out) {
    std::vector<std::string> argv;
    if (how.who == As::nobody)
        argv = testsupport::as_nobody_prefix();
    if (how.masked_proc)
        for (const char* a : {"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
                              "mount -t tmpfs none /proc/sys && exec \"$@\"", "sh"})
            argv.emplace_back(a);
    argv.push_back(testsupport::reachable(TOOLCAGE_BIN));
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + s.state,
                                    "XDG_STATE_HOME=" + s.state, "LANG=C.UTF-8"};
    // The launch's own value of a variable replaces the default one (PATH, HOME).
    for (const auto& e : how.env) {
        std::string name = e.substr(0, e.find('=') + 1);
        std::erase_if(env, [&](const std::string& d) { return d.starts_with(name); });
        env.push_back(e);
    }
    int gone[2] = {-1, -1};
    if (how.stderr_reader_gone) {
        REQUIRE(::pipe2(gone, O_CLOEXEC) == 0);
        ::close(gone[0]);
    }
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(out, 1);
        ::dup2(how.stderr_reader_gone ? gone[1] : out, 2);
        // SIGPIPE as a shell would leave it: default, not blocked (else the case proves nothing).
        ::signal(SIGPIPE, SIG_DFL);
        sigset_t pipe_only;
        sigemptyset(&pipe_only);
        sigaddset(&pipe_only, SIGPIPE);
        ::sigprocmask(SIG_UNBLOCK, &pipe_only, nullptr);
        int in = ::open("/dev/null", O_RDONLY);
        if (how.socket_stdin) {
            int sv[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) _exit(98);
            in = sv[0];
        }
        ::dup2(in, 0);
        if (::chdir(s.ws.c_str()) != 0) _exit(97);
        if (how.no_userns) refuse_user_namespaces();
        if (how.no_signalfd) refuse_signalfd();
        testsupport::keep_suite_state(env);
        std::vector<char*> a, e;
        for (auto& x : argv) a.push_back(const_cast<char*>(x.c_str()));
        a.push_back(nullptr);
        for (auto& x : env) e.push_back(const_cast<char*>(x.c_str()));
        e.push_back(nullptr);
        ::execve(a[0], a.data(), e.data());
        std::fprintf(stderr, "execve %s: %s\n", a[0], std::strerror(errno));
        _exit(99);
    }
    if (gone[1] >= 0) ::close(gone[1]);
    return pid;
}

std::string drain(int fd) {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    return out;
}

int reap(pid_t pid) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

std::string run_shell(const std::string& command, int& status) {
    std::string out;
    FILE* p = ::popen(command.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = ::pclose(p);
    return out;
}

void open_to_everyone(const std::string& base) {
    for (const auto& e : fs::recursive_directory_iterator(base))
        ::chmod(e.path().c_str(), e.is_directory() ? 0777 : 0644);
    ::chmod(base.c_str(), 0755);
}

Result run_toolcage(const Scratch& s, const std::vector<std::string>& args, const Launch& how) {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    pid_t pid = spawn(s, args, how, p[1]);
    ::close(p[1]);
    Result r;
    r.out = drain(p[0]);
    ::close(p[0]);
    r.status = reap(pid);
    return r;
}

Background::Background(const Scratch& s, const std::vector<std::string>& args, const Launch& how) {
    // Output to a file: nothing must hold a pipe that the relay could inherit.
    std::string path = s.base + "/background.out";
    out_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(out_ >= 0);
    pid_ = spawn(s, args, how, out_);
}

Background::~Background() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        reap(pid_);
    }
    if (out_ >= 0) ::close(out_);
}

Result Background::wait() {
    Result r;
    r.status = reap(pid_);
    pid_ = -1;
    ::lseek(out_, 0, SEEK_SET);
    r.out = drain(out_);
    return r;
}

bool wait_for_file(const std::string& path, int ms) {
    for (int i = 0; i < ms / 10; ++i) {
        if (::access(path.c_str(), F_OK) == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ::access(path.c_str(), F_OK) == 0;
}

std::string cmdline_of(pid_t pid) {
    std::string raw = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    for (auto& c : raw)
        if (c == '\0') c = ' ';
    return raw;
}

std::vector<pid_t> processes_with(const std::string& needle) {
    std::vector<pid_t> out;
    DIR* d = ::opendir("/proc");
    if (!d) return out;
    while (dirent* e = ::readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end) continue;
        if (cmdline_of(static_cast<pid_t>(pid)).find(needle) != std::string::npos)
            out.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(d);
    return out;
}

namespace {

// The fields after "(comm)" of /proc/PID/stat: state, ppid, ...
bool stat_fields(pid_t pid, char& state, pid_t& ppid) {
    std::string s = slurp("/proc/" + std::to_string(pid) + "/stat");
    auto close = s.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream in(s.substr(close + 2));
    return static_cast<bool>(in >> state >> ppid);
}

}  // namespace

pid_t parent_of(pid_t pid) {
    char st;
    pid_t pp;
    return stat_fields(pid, st, pp) ? pp : -1;
}

char state_of(pid_t pid) {
    char st;
    pid_t pp;
    return stat_fields(pid, st, pp) ? st : 0;
}

bool is_ancestor(pid_t ancestor, pid_t pid) {
    for (int i = 0; i < 1000 && pid > 1; ++i) {
        pid = parent_of(pid);
        if (pid == ancestor) return true;
    }
    return false;
}

namespace {
const char* kMaxUserNs = "/proc/sys/user/max_user_namespaces";
}

UsernsSysctlOff::UsernsSysctlOff() {
    std::string old = slurp(kMaxUserNs);
    if (old.empty()) return;
    std::ofstream f(kMaxUserNs);
    f << "0\n";
    f.flush();
    if (f && slurp(kMaxUserNs) == "0\n") old_ = old;
}

UsernsSysctlOff::~UsernsSysctlOff() {
    if (old_.empty()) return;
    std::ofstream(kMaxUserNs) << old_;
}

}  // namespace steptest
