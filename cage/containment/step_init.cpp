#include "cage/containment/step_init.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "cage/containment/landlock_uapi.h"
#include "cage/containment/launcher.h"
#include "cage/containment/limits.h"
#include "cage/containment/reaper.h"
#include "common/error.h"

namespace toolcage::cage {

namespace ll = toolcage::landlock;

namespace {

constexpr unsigned long kNamespaces = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS;

[[noreturn]] void fail(const CageSetup& s, int err, const std::string& call) {
    CageFailure f{};
    f.kind = 'p';
    f.err = err;
    std::strncpy(f.call, call.c_str(), sizeof f.call - 1);
    ssize_t n = ::write(s.report_fd, &f, sizeof f);
    (void)n;
    ::_exit(127);
}

int write_file(const char* path, const std::string& text) {
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ssize_t n = ::write(fd, text.data(), text.size());
    int err = n < 0 ? errno : EIO;
    ::close(fd);
    return n == static_cast<ssize_t>(text.size()) ? 0 : err;
}

// Our ids mapped to themselves: files the step makes keep their owner. setgroups() must be
// denied before an unprivileged process may write a group map. The supervisor made us
// non-dumpable, which gives our /proc files to root: dumpable while the maps are written.
void map_ids(const CageSetup& s) {
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (int e = write_file("/proc/self/setgroups", "deny"))
        fail(s, e, "write(\"/proc/self/setgroups\", \"deny\")");
    if (int e = write_file("/proc/self/gid_map", s.ns.gid_map))
        fail(s, e, "write(\"/proc/self/gid_map\", \"" + s.ns.gid_map + "\")");
    if (int e = write_file("/proc/self/uid_map", s.ns.uid_map))
        fail(s, e, "write(\"/proc/self/uid_map\", \"" + s.ns.uid_map + "\")");
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void add_rule(const CageSetup& s, const char* path, std::uint64_t access) {
    if (s.landlock_fd < 0 || access == 0) return;
    int fd = ::open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) fail(s, errno, std::string("open(\"") + path + "\", O_PATH)");
    ll::PathBeneathAttr attr{access, fd};
    if (::syscall(ll::kSysAddRule, s.landlock_fd, ll::kRulePathBeneath, &attr, 0) != 0)
        fail(s, errno, std::string("landlock_add_rule(\"") + path + "\")");
    ::close(fd);
}

void do_mount(const CageSetup& s, const char* source, const char* target, const char* type,
              unsigned long flags, const std::string& data) {
    if (::mount(source, target, type, flags, data.empty() ? nullptr : data.c_str()) != 0)
        fail(s, errno,
             std::string("mount(\"") + source + "\", \"" + target + "\", \"" + (type ? type : "") +
                 "\", \"" + data + "\")");
}

// The cover's text in a file of the private /dev/shm, mounted over the target and unlinked (the
// mount keeps it): the step sees it only where it replaces the original. Its rule is on the
// mounted file itself: Landlock walks up from the mount point, not from /dev/shm.
void cover_file(const CageSetup& s, const FileCover& c, std::size_t i) {
    const std::string path = "/dev/shm/.toolcage-cover-" + std::to_string(i);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (fd < 0) fail(s, errno, "open(\"" + path + "\", O_CREAT | O_EXCL)");
    for (std::size_t done = 0; done < c.text.size();) {
        ssize_t n = ::write(fd, c.text.data() + done, c.text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(s, n < 0 ? errno : EIO, "write(\"" + path + "\")");
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    do_mount(s, path.c_str(), c.target.c_str(), nullptr, MS_BIND, "");
    if (::unlink(path.c_str()) != 0) fail(s, errno, "unlink(\"" + path + "\")");
    add_rule(s, c.target.c_str(), s.ns.cover_access);
}

int set_mount_attr(const char* path, unsigned flags, std::uint64_t set, std::uint64_t clear) {
    mount_attr attr{};
    attr.attr_set = set;
    attr.attr_clr = clear;
    return ::syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &attr, sizeof attr) == 0 ? 0 : errno;
}

// A layer rule: the path opened in the merged view (O_PATH), its rights masked for a file as
// the supervisor masks its own (cage/containment/landlock.cpp); a path that does not exist is
// skipped, as the supervisor skips it.
void add_layer_rule(const CageSetup& s, const std::string& path, std::uint64_t access) {
    if (s.landlock_fd < 0 || access == 0) return;
    int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        return;
    }
    if (!S_ISDIR(st.st_mode)) access &= ll::kFsFileRights;
    ll::PathBeneathAttr attr{access, fd};
    int rc = access ? static_cast<int>(
                          ::syscall(ll::kSysAddRule, s.landlock_fd, ll::kRulePathBeneath, &attr, 0))
                    : 0;
    int err = errno;
    ::close(fd);
    if (rc != 0) fail(s, err, "landlock_add_rule(\"" + path + "\") in the step's layer");
}

// The step's layer over the workspace. A refusal here is reported as kind 'l': nothing of the
// step ran, and the supervisor starts it again on the snapshot.
void mount_layer(const CageSetup& s) {
    if (s.ns.layer_target.empty()) return;
    const std::string opts =
        layer_mount_options(s.ns.layer_target, s.ns.layer_upper, s.ns.layer_work);
    if (opts.empty() ||
        ::mount("overlay", s.ns.layer_target.c_str(), "overlay", 0, opts.c_str()) != 0) {
        CageFailure f{};
        f.kind = 'l';
        f.err = opts.empty() ? EINVAL : errno;
        const std::string call =
            "mount(\"overlay\", \"" + s.ns.layer_target + "\", \"overlay\", \"" + opts + "\")";
        std::strncpy(f.call, call.c_str(), sizeof f.call - 1);
        ssize_t n = ::write(s.report_fd, &f, sizeof f);
        (void)n;
        ::_exit(127);
    }
}

// Every mount read-only (one call for the whole tree), then each write grant bound over itself
// and made writable again: what bubblewrap's read-only binds do. A grant whose own file system
// is read-only (locked by the kernel: EPERM) stays so; one that does not exist is skipped.
void make_read_only_but_grants(const CageSetup& s) {
    if (int e = set_mount_attr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0))
        fail(s, e, "mount_setattr(\"/\", AT_RECURSIVE, MOUNT_ATTR_RDONLY)");
    for (const auto& w : s.ns.writable) {
        struct stat st {};
        if (::stat(w.c_str(), &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) continue;
        do_mount(s, w.c_str(), w.c_str(), nullptr, MS_BIND | MS_REC, "");
        int e = set_mount_attr(w.c_str(), 0, 0, MOUNT_ATTR_RDONLY);
        if (e && e != EPERM) fail(s, e, "mount_setattr(\"" + w + "\", clear MOUNT_ATTR_RDONLY)");
    }
}

// Mounts made here stay here; /proc shows this namespace's processes only; /dev/shm and
// /dev/pts are the step's own, empty (a host's 0600 file in /dev/shm, a person's terminal
// in /dev/pts are out of reach), and their Landlock rules land on the new mounts.
void mount_private_filesystems(const CageSetup& s) {
    do_mount(s, "none", "/", nullptr, MS_REC | MS_PRIVATE, "");
    // Before the read-only pass: the overlay takes a private, writable clone of its upper's mount.
    mount_layer(s);
    make_read_only_but_grants(s);
    for (const auto& [path, access] : s.ns.layer_rules) add_layer_rule(s, path, access);
    do_mount(s, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
    add_rule(s, "/proc", s.ns.proc_access);
    do_mount(s, "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
             "mode=1777,nr_inodes=65536,size=" + std::to_string(s.ns.shm_mb) + "m");
    add_rule(s, "/dev/shm", s.ns.dev_access);
    struct stat st {};
    if (::stat("/dev/pts", &st) == 0 && S_ISDIR(st.st_mode) && ::stat("/dev/ptmx", &st) == 0) {
        do_mount(s, "devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                 "newinstance,ptmxmode=0666,mode=0620");
        do_mount(s, "/dev/pts/ptmx", "/dev/ptmx", nullptr, MS_BIND, "");
        add_rule(s, "/dev/pts", s.ns.dev_access);
        add_rule(s, "/dev/ptmx", s.ns.dev_access & ll::kFsFileRights);
    }
    for (std::size_t i = 0; i < s.ns.covers.size(); ++i) cover_file(s, s.ns.covers[i], i);
}

// The supervisor adds the policy's path rules while we set up; the step restricts itself with
// the ruleset, so it starts only once they are all in. EOF: the supervisor failed first.
void wait_for_rules(const CageSetup& s) {
    if (s.ns.go_fd < 0) return;
    char go = 0;
    ssize_t n;
    do n = ::read(s.ns.go_fd, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);
    ::close(s.ns.go_fd);
}

// The supervisor is gone if the report pipe has no reader left (then the death signal, set
// just before, may have come too early to reach us).
void die_with_supervisor(const CageSetup& s) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) ::_exit(127);
    pollfd p{s.report_fd, POLLOUT, 0};
    if (::poll(&p, 1, 0) < 0 || (p.revents & (POLLERR | POLLHUP))) ::_exit(127);
}

// pid 1 of the namespace: the supervisor's signals (blocked, taken with sigwaitinfo; a pid 1
// receives only what it does not leave at SIG_DFL unblocked) go to the step's process group;
// orphans are reaped; the step's end is ours.
[[noreturn]] void be_init(pid_t step, int end_fd) {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&set, sig);
    for (;;) {
        int status = 0;
        pid_t p;
        while ((p = ::waitpid(-1, &status, WNOHANG)) > 0)
            if (p == step) {
                if (end_fd >= 0) {
                    ssize_t n = ::write(end_fd, &status, sizeof status);
                    (void)n;
                }
                ::_exit(exit_code_of(status));
            }
        if (p < 0 && errno == ECHILD) ::_exit(127);
        siginfo_t info{};
        int sig = ::sigwaitinfo(&set, &info);
        if (sig <= 0 || sig == SIGCHLD) continue;
        if (::kill(-step, sig) != 0) ::kill(step, sig);
    }
}

// Every descriptor but those the step's process needs: the supervisor's own must not live on in
// us (its journal's lock, held by the open file, would outlive a killed supervisor).
void close_other_fds(const CageSetup& s) {
    std::vector<int> keep = {s.report_fd, s.landlock_fd, s.network.channel,
                             s.stderr_fd, s.end_fd,      s.ns.go_fd};
    std::sort(keep.begin(), keep.end());
    unsigned from = 3;
    for (int k : keep) {
        if (k < static_cast<int>(from)) continue;
        if (static_cast<unsigned>(k) > from)
            ::syscall(SYS_close_range, from, static_cast<unsigned>(k) - 1, 0U);
        from = static_cast<unsigned>(k) + 1;
    }
    ::syscall(SYS_close_range, from, ~0U, 0U);
}

[[noreturn]] void run_init(const CageSetup& s) {
    die_with_supervisor(s);
    close_other_fds(s);
    map_ids(s);
    // The step's cgroups are joined here, while /sys is still writable; the step inherits them.
    CageSetup inner = s;  // our own copy (we are a forked process): the step's parent is pid 1
    std::string what;
    if (int e = s.cgroup ? s.cgroup->join(what) : 0) fail(s, e, what);
    if (int e = s.memory ? s.memory->join(what) : 0) fail(s, e, what);
    inner.cgroup = nullptr;
    inner.memory = nullptr;
    mount_private_filesystems(s);
    wait_for_rules(s);
    inner.supervisor = 1;
    inner.ns.enabled = false;
    inner.ns.go_fd = -1;
    pid_t step = start_step_process(inner, StepStart::vfork);
    if (step < 0) fail(s, errno, "clone(CLONE_VM | CLONE_VFORK) in the step's PID namespace");
    // Only the step keeps these (they close at its exec): then the supervisor reads EOF on each
    // when the step ends early.
    ::close(s.report_fd);
    if (s.landlock_fd >= 0) ::close(s.landlock_fd);
    if (s.network.channel >= 0) ::close(s.network.channel);
    if (s.network.supervisor_end >= 0) ::close(s.network.supervisor_end);
    // The step's stderr pipe: the supervisor reads EOF on it once the step's own copy is gone.
    if (s.stderr_fd >= 0) ::close(s.stderr_fd);
    be_init(step, s.end_fd);
}

}  // namespace

StepNamespace plan_step_namespace(std::uint64_t handled_fs, std::uint64_t proc_access,
                                  long shm_mb) {
    StepNamespace n;
    n.enabled = true;
    n.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
    n.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    n.proc_access = proc_access & handled_fs;
    // Read and write files, list, create and remove entries: what POSIX shared memory,
    // semaphores and pseudo-terminals need; nothing to execute.
    n.dev_access =
        handled_fs & (ll::kFsReadFile | ll::kFsReadDir | ll::kFsWriteFile | ll::kFsTruncate |
                      ll::kFsIoctlDev | ll::kFsMakeReg | ll::kFsRemoveFile);
    if (shm_mb > 0) n.shm_mb = shm_mb;
    n.cover_access = handled_fs & ll::kFsReadFile;
    return n;
}

pid_t start_step_in_namespace(const CageSetup& setup) {
    // A plain fork into the namespaces: the init runs on after the step's exec, so it cannot
    // share our memory (CLONE_VM), and it has no stack of its own to be given.
    long pid = -1;
    if (setup.ns.private_network) {
        pid = ::syscall(SYS_clone, kNamespaces | CLONE_NEWNET | SIGCHLD, nullptr, nullptr, nullptr,
                        nullptr);
        if (pid == 0) run_init(setup);
        if (pid > 0) return static_cast<pid_t>(pid);
        // A kernel that refuses the network namespace alone (net namespaces limited to 0): the
        // step goes on without it, as where no namespace can be made at all.
    }
    pid = ::syscall(SYS_clone, kNamespaces | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (pid == 0) run_init(setup);
    return static_cast<pid_t>(pid);
}

namespace {

// A child in the step's namespaces (and `extra` ones) that mounts /proc afresh, and with
// `read_only` makes every mount read-only first, as a step's init does.
bool probe_step_namespace(unsigned long extra, bool read_only, std::string* why) {
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        if (why) *why = syscall_error("pipe2()", errno);
        return false;
    }
    std::string uid = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
    std::string gid = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    long pid =
        ::syscall(SYS_clone, kNamespaces | extra | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (pid == 0) {
        ::close(pipefd[0]);
        int err = 0;
        std::string what;
        ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        if ((err = write_file("/proc/self/setgroups", "deny")))
            what = "write(\"/proc/self/setgroups\")";
        else if ((err = write_file("/proc/self/gid_map", gid)))
            what = "write(\"/proc/self/gid_map\")";
        else if ((err = write_file("/proc/self/uid_map", uid)))
            what = "write(\"/proc/self/uid_map\")";
        else if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
            err = errno, what = "mount(\"/\", MS_PRIVATE)";
        else if (read_only && (err = set_mount_attr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0)))
            what = "mount_setattr(\"/\", AT_RECURSIVE, MOUNT_ATTR_RDONLY)";
        else if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
            err = errno, what = "mount(\"proc\", \"/proc\")";
        if (err) {
            std::string msg = syscall_error(what, err);
            ssize_t n = ::write(pipefd[1], msg.data(), msg.size());
            (void)n;
        }
        ::_exit(err ? 1 : 0);
    }
    ::close(pipefd[1]);
    if (pid < 0) {
        int err = errno;
        ::close(pipefd[0]);
        if (why)
            *why = syscall_error(
                extra ? "clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET)"
                      : "clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)",
                err);
        return false;
    }
    char buf[512];
    ssize_t n = ::read(pipefd[0], buf, sizeof buf);
    ::close(pipefd[0]);
    int status = 0;
    ::waitpid(static_cast<pid_t>(pid), &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    if (why) *why = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "the probe died";
    return false;
}

}  // namespace

bool can_make_step_namespace(std::string* why) {
    return probe_step_namespace(0, false, why);
}

std::string layer_mount_options(const std::string& lower, const std::string& upper,
                                const std::string& work) {
    for (const auto* p : {&lower, &upper, &work})
        if (p->empty() || p->find_first_of(",:\\\n") != std::string::npos) return {};
    return "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work + ",userxattr";
}

bool can_make_step_layer(const std::string& state_dir, std::string* why) {
    if (state_dir.empty()) {
        if (why) *why = "no state directory for the layer's upper directory";
        return false;
    }
    char tmpl[] = "/layer-probe-XXXXXX";
    std::string base = state_dir + tmpl;
    if (!::mkdtemp(base.data())) {
        if (why) *why = syscall_error("mkdtemp(\"" + base + "\")", errno);
        return false;
    }
    const std::string lower = base + "/lower", upper = base + "/upper", work = base + "/work";
    for (const auto* d : {&lower, &upper, &work}) ::mkdir(d->c_str(), 0700);
    const std::string opts = layer_mount_options(lower, upper, work);
    int pipefd[2];
    bool ok = false;
    if (opts.empty()) {
        if (why)
            *why = state_dir +
                   " holds a character the overlay's options cannot carry (',', ':' or '\\')";
    } else if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        if (why) *why = syscall_error("pipe2()", errno);
    } else {
        std::string uid = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
        std::string gid = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
        long pid = ::syscall(SYS_clone, kNamespaces | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
        if (pid == 0) {
            ::close(pipefd[0]);
            int err = 0;
            std::string what;
            ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
            if ((err = write_file("/proc/self/setgroups", "deny")))
                what = "write(\"/proc/self/setgroups\")";
            else if ((err = write_file("/proc/self/gid_map", gid)))
                what = "write(\"/proc/self/gid_map\")";
            else if ((err = write_file("/proc/self/uid_map", uid)))
                what = "write(\"/proc/self/uid_map\")";
            else if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
                err = errno, what = "mount(\"/\", MS_PRIVATE)";
            else if (::mount("overlay", lower.c_str(), "overlay", 0, opts.c_str()) != 0)
                err = errno,
                what = "mount(\"overlay\", \"" + lower + "\", \"overlay\", \"" + opts + "\")";
            if (err) {
                std::string msg = syscall_error(what, err);
                ssize_t n = ::write(pipefd[1], msg.data(), msg.size());
                (void)n;
            }
            ::_exit(err ? 1 : 0);
        }
        ::close(pipefd[1]);
        if (pid < 0) {
            if (why)
                *why = syscall_error("clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)", errno);
        } else {
            char buf[700];
            ssize_t n = ::read(pipefd[0], buf, sizeof buf);
            int status = 0;
            ::waitpid(static_cast<pid_t>(pid), &status, 0);
            ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!ok && why)
                *why = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "the probe died";
        }
        ::close(pipefd[0]);
    }
    // The probe's directories, with whatever the overlay's work directory holds.
    // (overlayfs leaves work/work without any permission bits).
    ::chmod((work + "/work").c_str(), 0700);
    std::error_code ec;
    std::filesystem::remove_all(base, ec);
    return ok;
}

bool can_make_step_network(std::string* why) {
    return probe_step_namespace(CLONE_NEWNET, false, why);
}

bool can_make_mounts_read_only(std::string* why) {
    return probe_step_namespace(0, true, why);
}

}  // namespace toolcage::cage
