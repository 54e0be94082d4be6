#include "cage/recover.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cage/limits.h"
#include "cage/step_journal.h"
#include "cage/workspace_guard.h"
#include "common/decision_log.h"
#include "common/error.h"

namespace toolcage::cage {

namespace {

std::vector<std::string> list(const std::string& dir, bool dirs) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return out;
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        if (dirs ? e->d_type == DT_DIR : n.ends_with(".journal")) out.push_back(dir + "/" + n);
    }
    ::closedir(d);
    return out;
}

// Session, process group and start time of a process, from /proc/PID/stat.
bool read_stat(pid_t pid, pid_t& pgrp, pid_t& sid, unsigned long long& start) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t close = text.rfind(')');
    if (close == std::string::npos) return false;
    char state;
    int ppid, pg, s;
    if (std::sscanf(text.c_str() + close + 1, " %c %d %d %d", &state, &ppid, &pg, &s) != 4) return false;
    pgrp = pg;
    sid = s;
    start = process_start_time(pid);
    return true;
}

bool environ_has(pid_t pid, const std::string& entry) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/environ", static_cast<int>(pid));
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\0', at);
        if (end == std::string::npos) end = text.size();
        if (text.compare(at, end - at, entry) == 0) return true;
        at = end + 1;
    }
    return false;
}

// Kills what is left of a step: every process of its memory cgroup, of its session or process
// group (started after it), and every process that carries its TMPDIR in its environment (a
// daemon that left the session). Rounds until one finds nothing (a process forked between
// the scan and the kill is found by the next).
void kill_step_processes(const StepRecord& r) {
    const pid_t self = ::getpid();
    const std::string marker = r.tmpdir.empty() ? std::string() : "TMPDIR=" + r.tmpdir;
    for (int round = 0; round < 50; ++round) {
        int killed = 0;
        if (!r.memory_cgroup.empty()) {
            for (const char* f : {"/cgroup.procs", "/tasks"}) {
                std::ifstream in(r.memory_cgroup + f);
                pid_t p;
                while (in >> p)
                    if (p > 1 && p != self && ::kill(p, SIGKILL) == 0) ++killed;
            }
        }
        DIR* d = ::opendir("/proc");
        if (!d) return;
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
            if (pid <= 1 || pid == self) continue;
            pid_t pgrp = 0, sid = 0;
            unsigned long long start = 0;
            if (!read_stat(pid, pgrp, sid, start)) continue;
            bool ours = r.step > 0 && (sid == r.step || pgrp == r.step) && start >= r.step_start;
            if (!ours && !marker.empty()) ours = environ_has(pid, marker);
            if (ours && ::kill(pid, SIGKILL) == 0) ++killed;
        }
        ::closedir(d);
        if (killed == 0) return;
        ::usleep(10000);
    }
}

// One journal, locked by us (its supervisor is gone). Returns what is left undone.
std::string finish_step(int fd, const std::string& path, std::FILE* report) {
    ReadJournal j = read_journal(fd, path);
    kill_step_processes(j.record);
    std::unique_ptr<WorkspaceGuard> guard = WorkspaceGuard::from_journal(j.snapshot);
    std::vector<TamperEvent> events = guard->restore({j.record.tmpdir});
    remove_memory_cgroup(j.record.memory_cgroup);
    if (j.record.tmpdir.starts_with("/tmp/toolcage-")) {
        std::error_code ec;
        std::filesystem::remove_all(j.record.tmpdir, ec);
    }
    TamperContext ctx{j.record.policy, j.record.workspace, j.record.argv};
    std::vector<std::string> lines;
    std::string left;
    for (auto& e : events) {
        e.action += " (by the next toolcage call: the step's supervisor was killed)";
        if (report) std::fprintf(report, "toolcage: tamper: %s\n", e.text().c_str());
        lines.push_back(tamper_line(e, ctx));
        if (!e.undone) left += (left.empty() ? "" : "; ") + e.text();
    }
    if (!lines.empty()) (void)append_to_decision_log(lines);
    if (left.empty()) ::unlink(path.c_str());
    return left;
}

}  // namespace

std::string recover_unfinished(const std::string& workspace, std::FILE* report) {
    std::string left;
    try {
        std::vector<std::string> dirs;
        for (const auto& root : journal_roots()) {
            // The fallback in /tmp counts only when it is ours alone (cage/step_journal.h).
            struct stat st {};
            if (root == fallback_journal_root() &&
                (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
                 (st.st_mode & 077) != 0))
                continue;
            if (workspace.empty()) {
                for (auto& d : list(root, true)) dirs.push_back(std::move(d));
            } else if (std::string d = journal_dir(workspace, root); !d.empty()) {
                dirs.push_back(d);
            }
        }
        for (const auto& dir : dirs) {
            for (const auto& path : list(dir, false)) {
                int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) continue;
                // Locked: its supervisor runs (or another call is finishing it).
                struct stat held {}, now {};
                if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::fstat(fd, &held) != 0 ||
                    ::stat(path.c_str(), &now) != 0 || held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
                    ::close(fd);
                    continue;
                }
                std::string what;
                try {
                    what = finish_step(fd, path, report);
                } catch (const std::exception& e) {
                    what = e.what();
                }
                ::close(fd);
                if (!what.empty())
                    left += (left.empty() ? "" : "; ") + what + " (journal " + path +
                            ": put the files back by hand, then remove it)";
            }
        }
    } catch (const std::exception& e) {
        left += (left.empty() ? "" : "; ") + std::string(e.what());
    }
    if (left.empty()) return {};
    return "a step whose supervisor was killed left its workspace unrestored: " + left;
}

}  // namespace toolcage::cage
