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
#include "common/user_home.h"

namespace toolcage {

namespace {

// $TOOLCAGE_LOG's directory, when the value lies under a state directory of ours.
std::string accepted_log_variable(const char* v, std::string* why) {
    if (!v || !*v) return "";
    for (const auto& d : state_dir_candidates())
        if (lies_under(v, d)) return v;
    if (why)
        *why = std::string("TOOLCAGE_LOG=") + v + " is ignored: it may only name a file under " +
               primary_state_dir() + " (or " + fallback_state_dir() + ")";
    return "";
}

LogForwarder g_forwarder = nullptr;

}  // namespace

void set_log_forwarder(LogForwarder forwarder) { g_forwarder = forwarder; }

std::string decision_log_path() {
    if (std::string v = accepted_log_variable(std::getenv("TOOLCAGE_LOG"), nullptr); !v.empty()) return v;
    std::string dir = state_dir(false);
    if (dir.empty()) dir = state_dir(true);
    return dir.empty() ? std::string() : dir + "/decisions.jsonl";
}

std::string refused_log_variable() {
    std::string why;
    (void)accepted_log_variable(std::getenv("TOOLCAGE_LOG"), &why);
    return why;
}

std::string now_iso8601() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    // Not strftime: it reads /etc/localtime (tzset) on every call, for a UTC time it does not need.
    char out[48];
    std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(ms));
    return out;
}

namespace {

std::string append_lines(const std::string& path, const std::vector<std::string>& lines) {
    if (path.empty())
        return "no decision log can be named (neither " + primary_state_dir() + " nor " + fallback_state_dir() +
               " is a directory of the user's, mode 0700)";
    std::size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_private_dirs(path.substr(0, slash));
        if (!err.empty()) return err;
        if (std::string p = private_dir_problem(path.substr(0, slash)); !p.empty()) return p;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
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
