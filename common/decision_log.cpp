#include "common/decision_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "common/error.h"

namespace toolcage {

namespace {

// mkdir -p with 0700 for what it creates; returns the failing call's message or "".
std::string make_dirs(const std::string& dir) {
    if (dir.empty()) return "";
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return "";
    std::size_t slash = dir.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_dirs(dir.substr(0, slash));
        if (!err.empty()) return err;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return syscall_error("mkdir(\"" + dir + "\", 0700)", errno);
    return "";
}

LogForwarder g_forwarder = nullptr;

}  // namespace

void set_log_forwarder(LogForwarder forwarder) { g_forwarder = forwarder; }

std::string decision_log_path() {
    if (const char* p = std::getenv("TOOLCAGE_LOG"); p && *p) return p;
    if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x && x[0] == '/')
        return std::string(x) + "/toolcage/decisions.jsonl";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.local/state/toolcage/decisions.jsonl";
    return "";
}

std::string now_iso8601() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03lldZ", buf, static_cast<long long>(ms));
    return out;
}

namespace {

std::string append_lines(const std::string& path, const std::vector<std::string>& lines) {
    if (path.empty()) return "no decision log can be named (set TOOLCAGE_LOG or HOME)";
    std::size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_dirs(path.substr(0, slash));
        if (!err.empty()) return err;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return syscall_error("open(\"" + path + "\", O_WRONLY|O_APPEND|O_CREAT)", errno);
    std::string err;
    for (const auto& line : lines) {
        ssize_t n = ::write(fd, line.data(), line.size());
        if (n < 0) {
            err = syscall_error("write(\"" + path + "\")", errno);
            break;
        }
        if (static_cast<std::size_t>(n) != line.size()) {
            err = path + ": short write (" + std::to_string(n) + " of " + std::to_string(line.size()) +
                  " bytes)";
            break;
        }
    }
    ::close(fd);
    return err;
}

}  // namespace

std::string append_to_decision_log(const std::vector<std::string>& lines) {
    const std::string path = decision_log_path();
    std::string err = append_lines(path, lines);
    if (g_forwarder) g_forwarder(lines, path);
    return err;
}

}  // namespace toolcage
