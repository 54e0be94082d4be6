#include "hook/adapters/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace toolcage::hook {

namespace {

constexpr size_t kMaxCommand = 4096;

// Cut at a UTF-8 character boundary, so that the line stays valid JSON text.
std::string cut_utf8(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    size_t end = max;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end);
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

// mkdir -p with 0700 for what it creates; returns the failing call's message or "".
std::string make_dirs(const std::string& dir) {
    if (dir.empty()) return "";
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) return "";
    size_t slash = dir.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_dirs(dir.substr(0, slash));
        if (!err.empty()) return err;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return syscall_error("mkdir(" + dir + ", 0700)", errno);
    return "";
}

}  // namespace

std::string audit_log_path() {
    if (const char* p = std::getenv("TOOLCAGE_LOG"); p && *p) return p;
    if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x && x[0] == '/')
        return std::string(x) + "/toolcage/decisions.jsonl";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/state/toolcage/decisions.jsonl";
    return "";
}

std::string audit_line(const AuditRecord& r) {
    nlohmann::json j = {{"time", now_iso8601()}, {"agent", r.agent},     {"profile", r.profile},
                        {"session", r.session},  {"tool", r.tool},       {"verdict", r.verdict},
                        {"rule", r.rule},        {"reason", r.reason},   {"us", r.micros},
                        {"command", cut_utf8(r.command, kMaxCommand)}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string append_audit(const AuditRecord& r) {
    std::string path = audit_log_path();
    if (path.empty()) return "toolcage: warning: no audit log (set TOOLCAGE_LOG or HOME)";
    size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        std::string err = make_dirs(path.substr(0, slash));
        if (!err.empty()) return "toolcage: warning: audit log not written: " + err;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return "toolcage: warning: audit log not written: " +
                       syscall_error("open(" + path + ", O_WRONLY|O_APPEND|O_CREAT)", errno);
    std::string line = audit_line(r);
    ssize_t n = ::write(fd, line.data(), line.size());
    int err = errno;
    ::close(fd);
    if (n < 0) return "toolcage: warning: audit log not written: " + syscall_error("write(" + path + ")", err);
    if (static_cast<size_t>(n) != line.size())
        return "toolcage: warning: audit log " + path + ": short write (" + std::to_string(n) + " of " +
               std::to_string(line.size()) + " bytes)";
    return "";
}

}  // namespace toolcage::hook
