#include "relay/lifetime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <string>

#include "common/error.h"

namespace toolcage::relay {

WatchKind check_watch_fd(int fd) {
    const std::string flag = "--watch-fd " + std::to_string(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw Error(syscall_error(flag + ": fstat()", errno) +
                    " (pass an fd the relay inherits: a pidfd of the step or a pipe's read end)");
    if (S_ISFIFO(st.st_mode)) {
        int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) != O_RDONLY)
            throw Error(flag + ": is a pipe's write end (pass the read end; the step keeps the "
                               "write end open while it lives)");
        return WatchKind::pipe;
    }
    // A pidfd is an anonymous inode; /proc names it.
    char target[PATH_MAX];
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0) {
        target[n] = '\0';
        if (std::string(target) == "anon_inode:[pidfd]") return WatchKind::pidfd;
    }
    throw Error(flag + ": is neither a pidfd nor a pipe (pass pidfd_open() of the step, or the "
                       "read end of a lifeline pipe)");
}

void announce_ready(int fd, uint16_t port) {
    std::string line = std::to_string(port) + "\n";
    size_t done = 0;
    while (done < line.size()) {
        ssize_t n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw Error(syscall_error("--ready-fd " + std::to_string(fd) + ": write()", errno) +
                        " (pass an fd open for writing, e.g. a pipe's write end)");
        done += static_cast<size_t>(n);
    }
    ::close(fd);
}

static void redirect(int target_fd, const char* path, int flags) {
    int fd = ::open(path, flags | O_CLOEXEC, 0600);
    if (fd < 0) throw Error(syscall_error(std::string("open(") + path + ")", errno));
    if (::dup2(fd, target_fd) < 0) throw Error(syscall_error("dup2()", errno));
    ::close(fd);
}

void detach(const std::string& log_path) {
    pid_t child = ::fork();
    if (child < 0) throw Error(syscall_error("fork() for --detach", errno));
    if (child > 0) {
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    if (::setsid() < 0) ::_exit(1);
    pid_t grandchild = ::fork();
    if (grandchild < 0) ::_exit(1);
    if (grandchild > 0) ::_exit(0);
    // The relay proper: no controlling terminal, not the session leader, orphaned.
    if (::chdir("/") != 0) ::_exit(1);
    redirect(STDIN_FILENO, "/dev/null", O_RDONLY);
    const char* out = log_path.empty() ? "/dev/null" : log_path.c_str();
    redirect(STDOUT_FILENO, out, O_WRONLY | O_APPEND | (log_path.empty() ? 0 : O_CREAT));
    redirect(STDERR_FILENO, out, O_WRONLY | O_APPEND | (log_path.empty() ? 0 : O_CREAT));
}

}  // namespace toolcage::relay
