#include "hook/install/program_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>

namespace toolcage::install {

namespace fs = std::filesystem;

bool ProgramVersion::at_least(int ma, int mi, int pa) const {
    if (major != ma) return major > ma;
    if (minor != mi) return minor > mi;
    return patch >= pa;
}

std::optional<ProgramVersion> parse_version(std::string_view s) {
    // A program's own words end in a newline, which the pattern's `.` does not match.
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
    if (s.find('\n') != std::string_view::npos) s = s.substr(0, s.find('\n'));
    static const std::regex re(R"(^\s*v?(\d{1,4})\.(\d{1,4})\.(\d{1,4})\b.*)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(s.begin(), s.end(), m, re)) return std::nullopt;
    ProgramVersion v;
    v.major = std::stoi(m[1].str());
    v.minor = std::stoi(m[2].str());
    v.patch = std::stoi(m[3].str());
    v.text = m[1].str() + "." + m[2].str() + "." + m[3].str();
    return v;
}

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return {};
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
        size_t end = p.find(':', start);
        if (end == std::string::npos) end = p.size();
        std::string dir = p.substr(start, end - start);
        if (!dir.empty()) {
            fs::path cand = fs::path(dir) / name;
            if (::access(cand.c_str(), X_OK) == 0 && fs::is_regular_file(cand))
                return cand.string();
        }
        start = end + 1;
    }
    return {};
}

std::optional<std::string> run_for_output(const std::vector<std::string>& argv, int seconds) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(out[0]);
        ::close(out[1]);
        return std::nullopt;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::dup2(out[1], 1);
        int devnull = ::open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            ::dup2(devnull, 0);
            ::dup2(devnull, 2);
        }
        std::vector<char*> a;
        for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
        a.push_back(nullptr);
        ::execv(a[0], a.data());
        ::_exit(127);
    }
    ::close(out[1]);
    std::string text;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    bool timed_out = false;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{out[0], POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        char buf[4096];
        ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        if (text.size() < 65536) text.append(buf, static_cast<size_t>(n));
    }
    ::close(out[0]);
    if (timed_out) ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return text;
}

}  // namespace toolcage::install
