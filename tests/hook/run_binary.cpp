#include "run_binary.h"

#include "tests/other_user.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace toolcage::test {

namespace {

void check(bool ok, const char* what) {
    if (!ok) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

RunResult run_binary(const std::string& path, const std::vector<std::string>& args,
                     const std::string& input, const std::map<std::string, std::string>& env) {
    signal(SIGPIPE, SIG_IGN);  // the hook may stop reading an oversized payload
    int in[2], out[2], err[2];
    check(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0, "pipe2");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    std::vector<std::string> argv_s = {path};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
    testsupport::keep_suite_state(env_s);
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        close(err[0]);
        errno = rc;
        check(false, "posix_spawn");
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    RunResult r;
    size_t written = 0;
    bool in_open = true;
    if (input.empty()) {
        close(in[1]);
        in_open = false;
    }
    bool out_open = true, err_open = true;
    char buf[65536];
    while (out_open || err_open) {
        pollfd fds[3];
        int n = 0;
        int i_out = -1, i_err = -1, i_in = -1;
        if (out_open) { fds[n] = {out[0], POLLIN, 0}; i_out = n++; }
        if (err_open) { fds[n] = {err[0], POLLIN, 0}; i_err = n++; }
        if (in_open) { fds[n] = {in[1], POLLOUT, 0}; i_in = n++; }
        if (poll(fds, n, 60000) <= 0) break;
        if (i_in >= 0 && fds[i_in].revents) {
            ssize_t w = write(in[1], input.data() + written, input.size() - written);
            if (w > 0) written += static_cast<size_t>(w);
            if (w < 0 && errno != EAGAIN) written = input.size();
            if (written >= input.size()) {
                close(in[1]);
                in_open = false;
            }
        }
        for (auto [idx, fd, dst, is_open] : {std::tuple{i_out, out[0], &r.out, &out_open},
                                          std::tuple{i_err, err[0], &r.err, &err_open}}) {
            if (idx < 0 || !fds[idx].revents) continue;
            ssize_t got = read(fd, buf, sizeof buf);
            if (got > 0) {
                dst->append(buf, static_cast<size_t>(got));
            } else {
                *is_open = false;
            }
        }
    }
    if (in_open) close(in[1]);
    close(out[0]);
    close(err[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

TempDir::TempDir(const std::string& parent) {
    std::filesystem::create_directories(parent);
    std::string tmpl = parent + "/toolcage-hook-test-XXXXXX";
    check(mkdtemp(tmpl.data()) != nullptr, "mkdtemp");
    // The real location, so that paths the hook resolves compare equal.
    path_ = std::filesystem::canonical(tmpl).string();
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

void write_file(const std::string& path, const std::string& content) {
    make_dirs(std::filesystem::path(path).parent_path().string());
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << content;
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void make_dirs(const std::string& path) { std::filesystem::create_directories(path); }

}  // namespace toolcage::test
