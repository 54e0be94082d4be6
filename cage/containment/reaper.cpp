#include "cage/containment/reaper.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>

#include "common/error.h"

namespace toolcage::cage {

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

sigset_t supervised_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kForwarded) sigaddset(&set, s);
    sigaddset(&set, SIGCHLD);
    return set;
}

// The parent pid from /proc/<pid>/stat; the command name may hold ')' and spaces, so the
// fields are read after the last ')'.
pid_t read_ppid(const char* pid) {
    char path[300];
    std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char* close = nullptr;
    for (char* p = buf; *p; ++p)
        if (*p == ')') close = p;
    if (!close) return -1;
    char state = 0;
    int ppid = -1;
    if (std::sscanf(close + 1, " %c %d", &state, &ppid) != 2) return -1;
    return ppid;
}

}  // namespace

void become_child_subreaper() {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        throw Error(syscall_error("prctl(PR_SET_CHILD_SUBREAPER, 1)", errno));
}

sigset_t block_supervised_signals() {
    // A SIGCHLD left ignored by whoever started us would make the kernel reap for us.
    ::signal(SIGCHLD, SIG_DFL);
    sigset_t set = supervised_set(), old;
    if (::sigprocmask(SIG_BLOCK, &set, &old) != 0)
        throw Error(syscall_error("sigprocmask(SIG_BLOCK, {INT,TERM,HUP,QUIT,CHLD})", errno));
    return old;
}

namespace {

// One signal the supervisor took: the step's end is looked for again; the user's signals go to
// the step's process group (it runs in its own session: the terminal's signals reach only us).
void handle_signal(pid_t step, int sig) {
    if (sig <= 0 || sig == SIGCHLD) return;
    if (::kill(-step, sig) != 0) ::kill(step, sig);
}

}  // namespace

int wait_for_step(pid_t step, int end_fd, bool* ended, const StepOutput* output) {
    sigset_t set = supervised_set();
    // The signals, the step's output and its init's word in one poll. Without a signalfd (a
    // sandbox around us may refuse it), or when poll fails, the signals are taken with a short
    // sigtimedwait instead, and the output and the word looked at between two.
    const int sigfd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    struct CloseSigfd {
        int fd;
        ~CloseSigfd() {
            if (fd >= 0) ::close(fd);
        }
    } close_sigfd{sigfd};
    for (;;) {
        bool more = false;
        if (output) more = output->forward();
        // The step init's word comes before its own end, which waits for its namespaces to go.
        if (end_fd >= 0) {
            int early = 0;
            ssize_t n = ::read(end_fd, &early, sizeof early);
            if (n == static_cast<ssize_t>(sizeof early)) {
                if (ended) *ended = true;
                return early;
            }
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) end_fd = -1;  // the init is gone
        }
        // Reap first: the SIGCHLD may have come before we started waiting.
        int status = 0;
        pid_t p;
        while ((p = ::waitpid(-1, &status, WNOHANG)) > 0)
            if (p == step) return status;
        if (p < 0 && errno == ECHILD) return 0;  // not ours any more: cannot happen
        const int out_fd = output ? output->fd() : -1;
        bool polled = sigfd >= 0;
        if (polled && !more) {
            pollfd fds[3] = {{sigfd, POLLIN, 0}, {out_fd, POLLIN, 0}, {end_fd, POLLIN, 0}};
            polled = ::poll(fds, 3, -1) >= 0 || errno == EINTR;
        }
        if (!polled) {
            const timespec tick{0, more || out_fd >= 0 || end_fd >= 0 ? 10'000'000L : 999'999'999L};
            siginfo_t info{};
            handle_signal(step, ::sigtimedwait(&set, &info, &tick));
            continue;
        }
        signalfd_siginfo si{};
        while (::read(sigfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
            handle_signal(step, static_cast<int>(si.ssi_signo));
    }
}

std::vector<pid_t> list_descendants(pid_t root) {
    std::multimap<pid_t, pid_t> children;
    if (DIR* d = ::opendir("/proc")) {
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            pid_t ppid = read_ppid(e->d_name);
            if (ppid > 0) children.emplace(ppid, static_cast<pid_t>(std::atoi(e->d_name)));
        }
        ::closedir(d);
    }
    std::vector<pid_t> out;
    std::vector<pid_t> todo{root};
    while (!todo.empty()) {
        pid_t p = todo.back();
        todo.pop_back();
        auto [b, e] = children.equal_range(p);
        for (auto it = b; it != e; ++it) {
            out.push_back(it->second);
            todo.push_back(it->second);
        }
    }
    return out;
}

void kill_leftovers() {
    pid_t self = ::getpid();
    for (;;) {
        int status;
        pid_t p;
        while ((p = ::waitpid(-1, &status, WNOHANG)) > 0) {
        }
        if (p < 0 && errno == ECHILD) return;  // no child: as subreaper, no descendant either
        // A process forked between the scan and the kill is the child of one being killed:
        // it is reparented to us and found by the next round.
        for (pid_t d : list_descendants(self)) ::kill(d, SIGKILL);
        p = ::waitpid(-1, &status, 0);
        if (p < 0 && errno == ECHILD) return;
    }
}

int exit_code_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

}  // namespace toolcage::cage
