// One escape attempt per subcommand, run inside the cage (and outside, to show that the same
// operation works where nothing forbids it). Exit 0: the operation succeeded; 1: it was
// refused (the errno is printed); 3: the probe was misused or its own setup failed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

int refused(const char* what) {
    std::printf("refused: %s: %s\n", what, std::strerror(errno));
    return 1;
}
int done(const char* what) {
    std::printf("succeeded: %s\n", what);
    return 0;
}
int misuse(const char* what) {
    std::fprintf(stderr, "probe setup: %s: %s\n", what, std::strerror(errno));
    return 3;
}

sockaddr_in inet_addr_of(const char* addr, int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (addr && *addr) ::inet_pton(AF_INET, addr, &a.sin_addr);
    return a;
}

int tcp_connect(int port, const char* addr = nullptr) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return refused("socket(AF_INET, SOCK_STREAM)");
    sockaddr_in a = inet_addr_of(addr, port);
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return refused("connect");
    return done("connect");
}

// A server of its own on a free loopback port, and a connection to it (a test suite's way).
int serve_self() {
    int l = ::socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0) return refused("socket");
    sockaddr_in a = inet_addr_of(nullptr, 0);
    if (::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return refused("bind");
    if (::listen(l, 4) != 0) return refused("listen");
    socklen_t len = sizeof a;
    ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
    int c = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return refused("connect");
    int s = ::accept(l, nullptr, nullptr);
    if (s < 0) return refused("accept");
    if (::write(c, "ping", 4) != 4) return refused("write");
    char buf[4];
    if (::read(s, buf, 4) != 4) return refused("read");
    std::printf("port %d\n", ntohs(a.sin_port));
    return done("served itself on loopback");
}

int tcp_bind() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return refused("socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return refused("bind");
    if (::listen(s, 1) != 0) return refused("listen");
    return done("bind+listen");
}

int udp_send(int port, const char* addr = nullptr) {
    int s = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0) return refused("socket(AF_INET, SOCK_DGRAM)");
    sockaddr_in a = inet_addr_of(addr, port);
    if (::sendto(s, "x", 1, 0, reinterpret_cast<sockaddr*>(&a), sizeof a) != 1)
        return refused("sendto");
    return done("udp sendto");
}

sockaddr_un unix_addr(const std::string& name, bool abstract, socklen_t& len) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::size_t off = abstract ? 1 : 0;
    std::memcpy(a.sun_path + off, name.data(), std::min(name.size(), sizeof a.sun_path - 1 - off));
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + off + name.size() +
                                 (abstract ? 0 : 1));
    return a;
}

int unix_connect(const std::string& name, bool abstract) {
    int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0) return refused("socket(AF_UNIX, SOCK_STREAM)");
    socklen_t len;
    sockaddr_un a = unix_addr(name, abstract, len);
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), len) != 0) return refused("connect(unix)");
    return done("connect(unix)");
}

// The datagram socketpair trick: a pair made without socket(AF_UNIX) can still name any
// socket with sendto().
int dgram_pair(const std::string& path) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
        return refused("socketpair(AF_UNIX, SOCK_DGRAM)");
    socklen_t len;
    sockaddr_un a = unix_addr(path, false, len);
    if (::sendto(sv[0], "x", 1, 0, reinterpret_cast<sockaddr*>(&a), len) != 1)
        return refused("sendto");
    return done("dgram socketpair sendto");
}

int stream_pair() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return refused("socketpair(AF_UNIX, SOCK_STREAM)");
    if (::write(sv[0], "x", 1) != 1) return refused("write");
    char c;
    if (::read(sv[1], &c, 1) != 1) return refused("read");
    return done("stream socketpair");
}

int io_uring() {
    io_uring_params p{};
    long fd = ::syscall(SYS_io_uring_setup, 4, &p);
    if (fd < 0) return refused("io_uring_setup");
    return done("io_uring_setup");
}

pid_t spawn_sleeper() {
    pid_t c = ::fork();
    if (c == 0) {
        ::pause();
        _exit(0);
    }
    return c;
}

int ptrace_attach(pid_t pid) {
    if (::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) != 0) return refused("ptrace(PTRACE_SEIZE)");
    return done("ptrace(PTRACE_SEIZE)");
}

int vm_writev(pid_t pid) {
    static char target[8] = "before";  // same address in a forked child
    char src[8] = "after";
    iovec local{src, sizeof src}, remote{target, sizeof target};
    if (::process_vm_writev(pid, &local, 1, &remote, 1, 0) < 0) return refused("process_vm_writev");
    return done("process_vm_writev");
}

int read_file(const char* path) {
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return refused("open(O_RDONLY)");
    char buf[64];
    if (::read(fd, buf, sizeof buf) < 0) return refused("read");
    return done("read");
}

int write_file(const char* path) {
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return refused("open(O_WRONLY|O_CREAT|O_TRUNC)");
    if (::write(fd, "escaped\n", 8) != 8) return refused("write");
    return done("write");
}

int tiocsti() {
    char c = 'x';
    if (::ioctl(0, TIOCSTI, &c) != 0) return refused("ioctl(0, TIOCSTI)");
    return done("ioctl(0, TIOCSTI)");
}

int mount_tmpfs(const char* dir) {
    if (::unshare(::geteuid() == 0 ? CLONE_NEWNS : (CLONE_NEWUSER | CLONE_NEWNS)) != 0)
        return refused("unshare(CLONE_NEWNS)");
    if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return refused("mount(MS_PRIVATE)");
    if (::mount("none", dir, "tmpfs", 0, nullptr) != 0) return refused("mount(tmpfs)");
    return done("mount");
}

int mount_direct(const char* dir) {
    if (::mount("none", dir, "tmpfs", 0, nullptr) != 0) return refused("mount(tmpfs)");
    ::umount2(dir, MNT_DETACH);
    return done("mount");
}

int clone_userns() {
    // The raw clone system call, as a library falling back from clone3 would issue it.
    long pid = ::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (pid < 0) return refused("clone(CLONE_NEWUSER)");
    if (pid == 0) _exit(0);
    ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
    return done("clone(CLONE_NEWUSER)");
}

int memfd_exec() {
    int fd = static_cast<int>(::syscall(SYS_memfd_create, "x", 0));
    if (fd < 0) return refused("memfd_create");
    std::ifstream f("/usr/bin/true", std::ios::binary);
    std::string bin((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (::write(fd, bin.data(), bin.size()) != static_cast<ssize_t>(bin.size()))
        return misuse("write");
    char* argv[] = {const_cast<char*>("true"), nullptr};
    ::fexecve(fd, argv, environ);
    return refused("fexecve(memfd)");
}

int execveat_empty_path(const char* path) {
    int fd = ::open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return refused("open(O_PATH)");
    char* argv[] = {const_cast<char*>("true"), nullptr};
    ::syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
    return refused("execveat(fd, \"\", AT_EMPTY_PATH)");
}

int bpf_map() {
    bpf_attr attr{};
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    if (::syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr) < 0)
        return refused("bpf(BPF_MAP_CREATE)");
    return done("bpf(BPF_MAP_CREATE)");
}

// An x32 system call (getpid with __X32_SYSCALL_BIT): the cage must kill us for it.
int x32_call() {
    long r = ::syscall(0x40000000L | SYS_getpid);
    if (r < 0) return refused("x32 getpid");
    return done("x32 getpid");
}

int cap_eff_nonzero() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("CapEff:", 0) == 0) {
            unsigned long long v = std::strtoull(line.c_str() + 7, nullptr, 16);
            std::printf("CapEff %llx uid %d euid %d\n", v, ::getuid(), ::geteuid());
            // Privileged: any effective capability, or an euid of 0 gained through setuid.
            return v != 0 || (::geteuid() == 0 && ::getuid() != 0) ? 0 : 1;
        }
    return misuse("CapEff");
}

// Double fork with setsid: a daemon that writes its pid to `file` and waits for ever.
int daemonize(const char* file) {
    pid_t c = ::fork();
    if (c < 0) return misuse("fork");
    if (c == 0) {
        ::setsid();
        if (::fork() != 0) _exit(0);
        FILE* f = std::fopen(file, "w");
        if (f) {
            std::fprintf(f, "%d\n", ::getpid());
            std::fclose(f);
        }
        for (;;) ::pause();
    }
    ::waitpid(c, nullptr, 0);
    for (int i = 0; i < 200 && ::access(file, F_OK) != 0; ++i) ::usleep(10000);
    return done("daemon started");
}

// Forks up to `n` sleeping children; prints how many it got, then ends them.
int fork_many(int n) {
    std::vector<pid_t> kids;
    for (int i = 0; i < n; ++i) {
        pid_t c = ::fork();
        if (c < 0) break;
        if (c == 0) {
            ::pause();
            _exit(0);
        }
        kids.push_back(c);
    }
    std::printf("forked %zu\n", kids.size());
    for (pid_t c : kids) ::kill(c, SIGKILL);
    for (pid_t c : kids) ::waitpid(c, nullptr, 0);
    return static_cast<int>(kids.size()) < n ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 3;
    std::string op = argv[1];
    const char* a = argc > 2 ? argv[2] : "";
    const char* b = argc > 3 ? argv[3] : "";
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    if (op == "read") return read_file(a);
    if (op == "write") return write_file(a);
    if (op == "link") return ::link(a, b) == 0 ? done("link") : refused("link");
    if (op == "rename") return ::rename(a, b) == 0 ? done("rename") : refused("rename");
    if (op == "exec") {
        char* args[] = {const_cast<char*>(a), nullptr};
        ::execv(a, args);
        return refused("execv");
    }
    if (op == "connect") return tcp_connect(std::atoi(a));
    if (op == "connect-addr") return tcp_connect(std::atoi(b), a);
    if (op == "serve-self") return serve_self();
    if (op == "udp-addr") return udp_send(std::atoi(b), a);
    if (op == "bind") return tcp_bind();
    if (op == "udp") return udp_send(std::atoi(a));
    if (op == "raw") {
        int s = ::socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
        return s >= 0 ? done("raw socket") : refused("socket(AF_INET, SOCK_RAW)");
    }
    if (op == "packet") {
        int s = ::socket(AF_PACKET, SOCK_RAW, 0);
        return s >= 0 ? done("packet socket") : refused("socket(AF_PACKET, SOCK_RAW)");
    }
    if (op == "unix") return unix_connect(a, false);
    if (op == "abstract") return unix_connect(a, true);
    if (op == "dgram-pair") return dgram_pair(a);
    if (op == "stream-pair") return stream_pair();
    if (op == "io_uring") return io_uring();
    if (op == "ptrace-parent") return ptrace_attach(::getppid());
    if (op == "ptrace-child") {
        pid_t c = spawn_sleeper();
        int rc = ptrace_attach(c);
        ::kill(c, SIGKILL);
        return rc;
    }
    if (op == "vm_writev-parent") return vm_writev(::getppid());
    if (op == "vm_writev-child") {
        pid_t c = spawn_sleeper();
        int rc = vm_writev(c);
        ::kill(c, SIGKILL);
        return rc;
    }
    if (op == "environ-parent") {
        std::string p = "/proc/" + std::to_string(::getppid()) + "/environ";
        return read_file(p.c_str());
    }
    if (op == "environ-self") return read_file("/proc/self/environ");
    if (op == "kill") return ::kill(std::atoi(a), SIGCONT) == 0 ? done("kill") : refused("kill");
    if (op == "kill-child") {
        pid_t c = spawn_sleeper();
        int rc = ::kill(c, SIGKILL) == 0 ? done("kill") : refused("kill");
        ::waitpid(c, nullptr, 0);
        return rc;
    }
    if (op == "tiocsti") return tiocsti();
    if (op == "mount") return mount_tmpfs(a);
    if (op == "mount-direct") return mount_direct(a);
    if (op == "unshare-net")
        return ::unshare(CLONE_NEWNET) == 0 ? done("unshare(CLONE_NEWNET)")
                                            : refused("unshare(CLONE_NEWNET)");
    if (op == "userns")
        return ::unshare(CLONE_NEWUSER) == 0 ? done("unshare(CLONE_NEWUSER)")
                                             : refused("unshare(CLONE_NEWUSER)");
    if (op == "clone-userns") return clone_userns();
    if (op == "memfd-exec") return memfd_exec();
    if (op == "execveat") return execveat_empty_path(a);
    if (op == "bpf") return bpf_map();
    if (op == "x32") return x32_call();
    if (op == "privileged") return cap_eff_nonzero();
    if (op == "daemon") return daemonize(a);
    if (op == "fork-many") return fork_many(std::atoi(a));
    std::fprintf(stderr, "probe: unknown operation %s\n", op.c_str());
    return 3;
}
