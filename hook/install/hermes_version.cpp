#include "hook/install/hermes_version.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace toolcage::install {

namespace fs = std::filesystem;

bool HermesVersion::at_least(int ma, int mi, int pa) const {
    if (major != ma) return major > ma;
    if (minor != mi) return minor > mi;
    return patch >= pa;
}

std::optional<HermesVersion> parse_hermes_version(std::string_view s) {
    static const std::regex re(R"(^\s*v?(\d{1,4})\.(\d{1,4})\.(\d{1,4})\b.*)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(s.begin(), s.end(), m, re)) return std::nullopt;
    HermesVersion v;
    v.major = std::stoi(m[1].str());
    v.minor = std::stoi(m[2].str());
    v.patch = std::stoi(m[3].str());
    v.text = m[1].str() + "." + m[2].str() + "." + m[3].str();
    return v;
}

namespace {

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

// The program on a script's #! line (the first word after #!).
std::string interpreter_of(const std::string& script) {
    std::ifstream in(script);
    std::string line;
    if (!std::getline(in, line) || !line.starts_with("#!")) return {};
    line = line.substr(2);
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    size_t e = line.find_first_of(" \t\r", b);
    return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// Runs argv with a time limit; stdout, or nullopt when it fails or runs too long.
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

}  // namespace

DetectedHermes detect_hermes(const std::string& given) {
    DetectedHermes d;
    if (!given.empty()) {
        d.version = parse_hermes_version(given);
        d.source = d.version ? "as given by --hermes-version"
                             : "--hermes-version " + given + ": not a version (expected X.Y.Z)";
        return d;
    }
    std::string hermes = find_on_path("hermes");
    if (hermes.empty()) {
        d.source =
            "no `hermes` on PATH; pass --hermes-version X.Y.Z to say which Hermes this is for";
        return d;
    }
    std::string python = interpreter_of(hermes);
    if (python.empty() ||
        fs::path(python).filename().string().find("python") == std::string::npos) {
        d.source = hermes + " is not a Python entry point; pass --hermes-version X.Y.Z";
        return d;
    }
    auto out = run_for_output(
        {python, "-c", "import sys, hermes_cli; sys.stdout.write(str(hermes_cli.__version__))"},
        20);
    if (out) d.version = parse_hermes_version(*out);
    d.source = d.version ? "hermes_cli.__version__ of " + hermes
                         : python + " could not tell hermes_cli.__version__ (for " + hermes +
                               "); pass --hermes-version X.Y.Z";
    return d;
}

std::string enforcement_report(const DetectedHermes& d) {
    if (!d.version)
        return "Hermes version unknown (" + d.source +
               "): toolcage claims nothing about what it enforces there.\n";
    const HermesVersion& v = *d.version;
    std::string out = "Hermes " + v.text + " (" + d.source + "):\n";
    if (!v.at_least(0, 19, 0)) {
        return out +
               "  older than 0.19.0, the first Hermes with tool_request middleware and plugin "
               "approvals: toolcage cannot cage or ask there and claims nothing; the plugin "
               "refuses "
               "every call it would cage. Upgrade Hermes.\n";
    }
    out +=
        "  plugin (first layer): blocks (pre_tool_call block), cages (tool_request middleware "
        "rewrite), asks a person through Hermes's approval gate (pre_tool_call approve; refused "
        "at once where no person can answer), blocks when toolcage fails or hangs\n";
    out += "  shell hook (second layer, for when the plugin is not loaded): blocks";
    if (v.at_least(0, 20, 2))
        out += ", cages (modify)";
    else
        out +=
            "; cannot cage (Hermes ignores its modify answer before 0.20.2): a caged command "
            "would run bare without the plugin";
    if (v.at_least(0, 20, 1))
        out += "; fail_closed: a hook that times out, is missing or answers non-JSON blocks";
    else
        out += "; no fail_closed (0.20.1): a hook that fails lets the call run";
    out += "; never asks a person (Hermes reads no approve from a shell hook)\n";
    return out;
}

}  // namespace toolcage::install
