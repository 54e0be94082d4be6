#include "cage/integrity/recover.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <vector>

#include "cage/containment/limits.h"
#include "cage/integrity/change_store.h"
#include "cage/integrity/step_journal.h"
#include "cage/integrity/workspace_guard.h"
#include "common/decision_log.h"
#include "common/error.h"
#include "common/proc_file.h"
#include "common/user_home.h"

namespace toolcage::cage {

namespace {

// The names in a directory opened without following a symlink: journals, or every entry.
std::vector<std::string> list(int dirfd, bool journals_only) {
    std::vector<std::string> out;
    int fd = ::dup(dirfd);
    if (fd < 0) return out;
    DIR* d = ::fdopendir(fd);
    if (!d) {
        ::close(fd);
        return out;
    }
    ::rewinddir(d);
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        if (!journals_only || n.ends_with(".journal")) out.push_back(n);
    }
    ::closedir(d);
    return out;
}

struct ProcStat {
    pid_t pgrp = 0, sid = 0;
    unsigned long long start = 0;
    uid_t uid = 0;
};

// Session, process group, start time and owner of a process, from /proc/PID.
bool read_stat(pid_t pid, ProcStat& out) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d", static_cast<int>(pid));
    struct stat st {};
    if (::stat(path, &st) != 0) return false;
    out.uid = st.st_uid;
    std::string text = read_proc_file(pid, "stat");
    std::size_t close = text.rfind(')');
    if (close == std::string::npos) return false;
    char state;
    int ppid, pg, s;
    if (std::sscanf(text.c_str() + close + 1, " %c %d %d %d", &state, &ppid, &pg, &s) != 4) return false;
    out.pgrp = pg;
    out.sid = s;
    out.start = process_start_time(pid);
    return out.start != 0;
}

bool environ_has(pid_t pid, const std::string& entry) {
    std::string text = read_proc_file(pid, "environ", 64 * 1024 * 1024);
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\0', at);
        if (end == std::string::npos) end = text.size();
        if (text.compare(at, end - at, entry) == 0) return true;
        at = end + 1;
    }
    return false;
}

bool in_cgroup(pid_t pid, const std::string& cgroup_dir) {
    std::string text = read_proc_file(pid, "cgroup");
    std::string name = cgroup_dir.substr(cgroup_dir.rfind('/'));
    return text.find(name + "\n") != std::string::npos;
}

// SIGKILL to `pid` only while `still_ours` holds: the process is pinned by a pidfd first, so a
// pid reused between the check and the signal is never signalled.
bool kill_proven(pid_t pid, const std::function<bool(pid_t)>& still_ours) {
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return false;
    bool killed = still_ours(pid) && ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0;
    ::close(pidfd);
    return killed;
}

// "/tmp/toolcage-" and six letters or digits (cage/settings/step_tmpdir.h), a directory of the
// user's or gone.
std::string tmpdir_problem(const std::string& t) {
    if (t.empty()) return "";
    const std::string prefix = "/tmp/toolcage-";
    bool shape = t.size() == prefix.size() + 6 && t.starts_with(prefix);
    for (std::size_t i = prefix.size(); shape && i < t.size(); ++i)
        shape = std::isalnum(static_cast<unsigned char>(t[i])) != 0;
    if (!shape) return "its TMPDIR \"" + t + "\" is not one toolcage makes (/tmp/toolcage-XXXXXX)";
    struct stat st {};
    if (::lstat(t.c_str(), &st) != 0) return errno == ENOENT ? "" : syscall_error("lstat(\"" + t + "\")", errno);
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
        return "its TMPDIR " + t + " is not a directory of the user's";
    return "";
}

// A memory cgroup toolcage makes per step: /sys/fs/cgroup/…/toolcage-step-<pid>-<n>.
std::string cgroup_problem(const std::string& c) {
    if (c.empty()) return "";
    std::string last = c.substr(c.rfind('/') + 1);
    if (!lies_under(c, "/sys/fs/cgroup") || !last.starts_with("toolcage-step-"))
        return "its memory cgroup \"" + c + "\" is not one toolcage makes";
    return "";
}

// Whether the journal's record may be acted on: its workspace is the one at hand, and what it
// names of the step's (TMPDIR, cgroup, process) is proven the step's. "" when it is.
std::string record_problem(const StepRecord& r, const std::string& workspace) {
    if (r.workspace != workspace) return "it names the workspace " + r.workspace + ", not " + workspace;
    if (std::string p = tmpdir_problem(r.tmpdir); !p.empty()) return p;
    if (std::string p = cgroup_problem(r.memory_cgroup); !p.empty()) return p;
    if (r.step < 0 || r.step == 1) return "it names pid " + std::to_string(r.step) + " as the step";
    if (r.step > 0) {
        if (r.step_start == 0) return "it names pid " + std::to_string(r.step) + " without its start time";
        ProcStat ps;
        // The step's process itself, when it still runs, must be the one that started then.
        if (read_stat(r.step, ps) && (ps.start != r.step_start || ps.uid != ::getuid()))
            return "it names pid " + std::to_string(r.step) + " as the step, but that process is not the step's "
                   "(another start time or owner)";
    }
    return "";
}

// Kills what is left of a step: every process of its memory cgroup, of its session or process
// group (started after it), and every process of the user's that carries its TMPDIR in its
// environment (a daemon that left the session). Rounds until one finds nothing (a process forked
// between the scan and the kill is found by the next).
void kill_step_processes(const StepRecord& r) {
    const pid_t self = ::getpid();
    const uid_t me = ::getuid();
    const std::string marker = r.tmpdir.empty() ? std::string() : "TMPDIR=" + r.tmpdir;
    auto ours = [&](pid_t pid) {
        ProcStat ps;
        if (pid <= 1 || pid == self || !read_stat(pid, ps) || ps.uid != me) return false;
        if (r.step > 0 && (ps.sid == r.step || ps.pgrp == r.step) && ps.start >= r.step_start) return true;
        return !marker.empty() && environ_has(pid, marker);
    };
    for (int round = 0; round < 50; ++round) {
        int killed = 0;
        if (!r.memory_cgroup.empty()) {
            for (const char* f : {"/cgroup.procs", "/tasks"}) {
                std::ifstream in(r.memory_cgroup + f);
                pid_t p;
                while (in >> p)
                    if (p > 1 && p != self &&
                        kill_proven(p, [&](pid_t q) { return in_cgroup(q, r.memory_cgroup); }))
                        ++killed;
            }
        }
        if (r.step > 0 || !marker.empty()) {
            DIR* d = ::opendir("/proc");
            if (!d) return;
            while (dirent* e = ::readdir(d)) {
                if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
                pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
                if (ours(pid) && kill_proven(pid, ours)) ++killed;
            }
            ::closedir(d);
        }
        if (killed == 0) return;
        ::usleep(10000);
    }
}

// One journal, locked by us (its supervisor is gone). Throws Error naming what does not check
// out (then nothing was done); returns what is left undone.
std::string finish_step(int fd, const std::string& path, const std::string& workspace, std::FILE* report) {
    ReadJournal j = read_journal(fd, path);
    if (std::string p = record_problem(j.record, workspace); !p.empty()) throw Error("step journal " + path + ": " + p);
    std::unique_ptr<WorkspaceGuard> guard;
    try {
        guard = WorkspaceGuard::from_journal(j.snapshot, workspace);
    } catch (const std::exception& e) {
        throw Error("step journal " + path + ": " + e.what());
    }
    kill_step_processes(j.record);
    std::vector<TamperEvent> events = guard->restore({j.record.tmpdir});
    remove_memory_cgroup(j.record.memory_cgroup);
    if (!j.record.tmpdir.empty()) {
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

// Locks `name` in `dirfd` when its supervisor is gone: -1 when it is locked (its supervisor
// runs, or another call is finishing it) or gone.
int lock_unfinished(int dirfd, const std::string& name) {
    int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat held {}, now {};
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::fstat(fd, &held) != 0 ||
        ::fstatat(dirfd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || held.st_ino != now.st_ino ||
        held.st_dev != now.st_dev) {
        ::close(fd);
        return -1;
    }
    return fd;
}

const char kWhatToDo[] =
    "; it was left alone (nothing restored, nothing killed): check the workspace's protected paths "
    "(.git/config, .git/hooks/, …) by hand, then remove it";

}  // namespace

std::string recover_unfinished(const std::string& workspace, std::FILE* report) {
    if (workspace.empty()) return {};
    std::string left;
    auto add = [&](const std::string& s) { left += (left.empty() ? "" : "; ") + s; };
    try {
        for (const auto& root : journal_roots()) {
            const std::string dir = journal_dir(workspace, root);
            struct stat st {};
            if (::lstat(dir.c_str(), &st) != 0) continue;  // the usual case: nothing to finish
            if (std::string p = private_dir_problem(dir); !p.empty()) {
                add("journal directory " + dir + ": " + p + kWhatToDo + " (rm -r " + dir + ")");
                continue;
            }
            int dirfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dirfd < 0) {
                add(syscall_error("open(\"" + dir + "\")", errno));
                continue;
            }
            bool finished = false;
            for (const auto& name : list(dirfd, true)) {
                const std::string path = dir + "/" + name;
                int fd = lock_unfinished(dirfd, name);
                if (fd < 0) {
                    struct stat ls {};
                    if (::fstatat(dirfd, name.c_str(), &ls, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(ls.st_mode))
                        add("step journal " + path + ": a symlink" + kWhatToDo + " (rm " + path + ")");
                    continue;
                }
                try {
                    std::string what = finish_step(fd, path, workspace, report);
                    if (what.empty())
                        finished = true;
                    else
                        add(what + " (journal " + path + ": put the files back by hand, then remove it)");
                } catch (const std::exception& e) {
                    add(std::string(e.what()) + kWhatToDo + " (rm " + path + ")");
                }
                ::close(fd);
            }
            // Nothing left of the workspace's steps: its directory goes too.
            if (finished) {
                std::vector<std::string> rest = list(dirfd, false);
                if (rest.size() == 1 && rest[0] == "workspace") ::unlinkat(dirfd, "workspace", 0);
                if (rest.empty() || (rest.size() == 1 && rest[0] == "workspace")) ::rmdir(dir.c_str());
            }
            ::close(dirfd);
        }
    } catch (const std::exception& e) {
        add(e.what());
    }
    if (!left.empty()) return "a step whose supervisor was killed left a journal toolcage cannot finish: " + left;
    // Its processes gone, what such a step changed in the hold class is held (change_store.h).
    if (std::string held = finish_held_steps(workspace, report); !held.empty())
        return "a step whose supervisor was killed left changes toolcage cannot hold: " + held;
    return {};
}

std::vector<std::string> journal_housekeeping() {
    std::vector<std::string> out;
    for (const auto& root : journal_roots()) {
        struct stat st {};
        if (::lstat(root.c_str(), &st) != 0) continue;
        if (std::string p = private_dir_problem(root); !p.empty()) {
            out.push_back("journal directory " + root + ": " + p + "; left alone");
            continue;
        }
        int rootfd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rootfd < 0) continue;
        for (const auto& name : list(rootfd, false)) {
            const std::string dir = root + "/" + name;
            int dirfd = ::openat(rootfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dirfd < 0) continue;
            std::string ws;
            if (int f = ::openat(dirfd, "workspace", O_RDONLY | O_NOFOLLOW | O_CLOEXEC); f >= 0) {
                char buf[4096];
                ssize_t n = ::read(f, buf, sizeof buf);
                if (n > 0) ws.assign(buf, static_cast<std::size_t>(n));
                ::close(f);
                while (!ws.empty() && ws.back() == '\n') ws.pop_back();
            }
            struct stat wst {}, dst {};
            // A directory without its workspace file is being made by a run right now (it writes
            // the file just after the directory) unless it is older than a minute.
            const bool young = ::fstat(dirfd, &dst) == 0 && ::time(nullptr) - dst.st_mtime < 60;
            const bool gone = ws.empty() ? !young
                                         : ws[0] != '/' || ::stat(ws.c_str(), &wst) != 0 || journal_dir(ws, root) != dir;
            std::vector<std::string> entries = list(dirfd, false);
            bool busy = false;
            if (gone) {
                for (const auto& e : entries) {
                    if (e.ends_with(".journal")) {
                        int fd = lock_unfinished(dirfd, e);
                        if (fd < 0) {
                            busy = true;
                            continue;
                        }
                        ::unlinkat(dirfd, e.c_str(), 0);
                        ::close(fd);
                    } else {
                        ::unlinkat(dirfd, e.c_str(), 0);
                    }
                }
            }
            ::close(dirfd);
            if (gone && !busy && ::unlinkat(rootfd, name.c_str(), AT_REMOVEDIR) == 0)
                out.push_back("removed " + dir + " (the journals of " + (ws.empty() ? "a workspace" : ws) +
                              ", which no longer exists)");
        }
        ::close(rootfd);
    }
    return out;
}

}  // namespace toolcage::cage
