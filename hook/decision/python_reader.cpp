#include "hook/decision/python_reader.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <utility>
#include <nlohmann/json.hpp>

#include "cage/containment/landlock_uapi.h"
#include "hook/pipeline/process_bounds.h"

namespace toolcage::hook {

namespace {

// Reads the program's bytes from stdin as data and never runs them: compile() with
// PyCF_ONLY_AST stops at the syntax tree. The bytes are compiled as a file's (Python applies
// its BOM and coding cookie) and, decoded as UTF-8, as a -c text's (no cookie applies); the two
// trees must be one. The tree is then written out as the tokens a reader of the source would
// see: names, `.` between an object and its attribute and nowhere else, import statements in
// their plain form, every string constant's value (outside ASCII as '?'), an f-string's literal
// parts with '?' where a field stands, and separators that keep unrelated nodes apart.
constexpr const char* kChecker = R"PY(
import ast, json, sys

def tokens(tree):
    out = []
    def tok(kind, text, line):
        out.append([kind, text, line])
    def ascii_only(s):
        return ''.join(c if ord(c) < 128 else '?' for c in s)
    def dotted(name, line):
        for i, part in enumerate(name.split('.')):
            if i:
                tok('o', '.', line)
            tok('n', part, line)
    def aliases(names, line):
        for i, a in enumerate(names):
            if i:
                tok('o', ',', line)
            if a.name == '*':
                tok('o', '*', line)
            else:
                dotted(a.name, line)
            if a.asname:
                tok('n', 'as', line)
                tok('n', a.asname, line)
        tok('o', ';', line)
    def walk(node, line):
        line = getattr(node, 'lineno', line)
        if isinstance(node, ast.Import):
            tok('n', 'import', line)
            aliases(node.names, line)
        elif isinstance(node, ast.ImportFrom):
            tok('n', 'from', line)
            if node.level:
                tok('o', '.', line)
            if node.module:
                dotted(node.module, line)
            tok('n', 'import', line)
            aliases(node.names, line)
        elif isinstance(node, ast.Name):
            tok('n', node.id, line)
        elif isinstance(node, ast.Attribute):
            walk(node.value, line)
            tok('o', '.', line)
            tok('n', node.attr, line)
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, str):
                tok('s', ascii_only(v), line)
            elif isinstance(v, bytes):
                tok('s', ascii_only(v.decode('latin-1')), line)
            else:
                tok('u', type(v).__name__, line)
            tok('o', ';', line)
        elif isinstance(node, ast.JoinedStr):
            parts = [ascii_only(v.value) if isinstance(v, ast.Constant) else '?' for v in node.values]
            tok('s', ''.join(parts), line)
            tok('o', ';', line)
            for v in node.values:
                if not isinstance(v, ast.Constant):
                    walk(v, line)
        elif isinstance(node, ast.AST):
            for field, value in ast.iter_fields(node):
                if field in ('ctx', 'kind', 'type_comment') or value is None:
                    continue
                for item in (value if isinstance(value, list) else [value]):
                    if isinstance(item, str):
                        tok('n', item, line)
                    elif isinstance(item, ast.AST):
                        walk(item, line)
                    tok('o', ';', line)
    walk(tree, 1)
    return out

def main():
    src = sys.stdin.buffer.read(262145)
    if len(src) > 262144:
        return 'the code is longer than 256 KiB'
    flags = ast.PyCF_ONLY_AST
    try:
        as_file = compile(src, '<code>', 'exec', flags, dont_inherit=True)
        as_text = compile(src.decode('utf-8'), '<code>', 'exec', flags, dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeError, RecursionError, MemoryError) as e:
        return type(e).__name__ + ': ' + str(e)
    if ast.dump(as_file) != ast.dump(as_text):
        return 'the code reads otherwise as a file (its coding cookie or BOM) than as text'
    sys.stdout.write(json.dumps(tokens(as_text)))
    return None

sys.setrecursionlimit(20000)
try:
    why = main()
except RecursionError:
    why = 'the code is nested too deeply to read'
if why:
    sys.stderr.write(why[:300])
    sys.exit(3)
)PY";

// Half the hook's own deadline (hook/pipeline/process_bounds.h): a reader that takes longer is a
// "not read-only" with its reason, not the hook's refusal of the whole call.
constexpr int kDeadlineMs = static_cast<int>(toolcage::hook::kDeadline.count() / 2);
constexpr rlim_t kCpuSeconds = 1;
constexpr rlim_t kAddressSpace = 512ULL << 20;
constexpr std::size_t kMaxReport = 16U << 20;  // the tokens of 256 KiB of code, many times over
constexpr std::size_t kMaxMessage = 1024;

#if defined(__x86_64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kAuditArch = 0;  // unknown: the reader refuses to run
#endif

// Refused with EPERM: every socket (no network, no daemon's socket), io_uring (it runs socket
// and open calls past seccomp), and reaching into other processes. Another architecture's
// calls kill the reader.
constexpr long kRefusedCalls[] = {SYS_socket,        SYS_socketpair,        SYS_io_uring_setup,
                                  SYS_io_uring_enter, SYS_io_uring_register, SYS_ptrace,
                                  SYS_process_vm_readv, SYS_process_vm_writev};

std::vector<sock_filter> reader_filter() {
    std::vector<sock_filter> f;
    const auto n = static_cast<unsigned char>(std::size(kRefusedCalls));
    f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
    // x32 calls carry bit 30 on the same architecture number.
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, static_cast<unsigned char>(n + 2), 0));
#endif
    for (unsigned char i = 0; i < n; ++i)
        f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(kRefusedCalls[i]),
                             static_cast<unsigned char>(n - i), 0));
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
#if defined(__x86_64__)
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    return f;
}

// A Landlock ruleset that handles every right to change a file and to use TCP, and grants
// none; -1 where the kernel has no Landlock (the filter and the limits still hold).
int no_writes_ruleset() {
    namespace ll = toolcage::landlock;
    const long abi = ::syscall(ll::kSysCreateRuleset, nullptr, 0, ll::kCreateRulesetVersion);
    if (abi < 1) return -1;
    const int a = static_cast<int>(std::min<long>(abi, ll::kKnownAbi));
    ll::RulesetAttr attr{};
    attr.handled_access_fs =
        ll::fs_rights_for_abi(a) & ~(ll::kFsExecute | ll::kFsReadFile | ll::kFsReadDir | ll::kFsIoctlDev);
    attr.handled_access_net = ll::net_rights_for_abi(a);
    attr.scoped = ll::scopes_for_abi(a);
    const unsigned long size = a >= 6 ? ll::kRulesetAttrSizeAbi6
                               : a >= 4 ? ll::kRulesetAttrSizeAbi4
                                        : ll::kRulesetAttrSizeAbi1;
    return static_cast<int>(::syscall(ll::kSysCreateRuleset, &attr, size, 0U));
}

struct ReaderSetup {
    const char* python;
    int in_fd, out_fd, err_fd;
    int ruleset_fd;  // -1: no Landlock
    sock_fprog filter;
    char* const* argv;
    char* const* envp;
};

// The reader's side of the fork, in order; only system calls. Exits 126 when a step fails.
[[noreturn]] void become_reader(const ReaderSetup& s) {
    auto need = [](bool ok) {
        if (!ok) ::_exit(126);
    };
    need(::dup2(s.in_fd, 0) == 0 && ::dup2(s.out_fd, 1) == 1 && ::dup2(s.err_fd, 2) == 2);
    need(::chdir("/") == 0);  // -I keeps the directory off sys.path; nothing is read from it either
    need(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    if (s.ruleset_fd >= 0) need(::syscall(toolcage::landlock::kSysRestrictSelf, s.ruleset_fd, 0U) == 0);
    need(::syscall(SYS_close_range, 3U, ~0U, 0U) == 0);
    const std::pair<int, rlim_t> limits[] = {{RLIMIT_CPU, kCpuSeconds}, {RLIMIT_AS, kAddressSpace},
                                             {RLIMIT_FSIZE, 0},         {RLIMIT_CORE, 0},
                                             {RLIMIT_NOFILE, 64}};
    for (const auto& [resource, value] : limits) {
        const rlimit l{value, value};
        need(::setrlimit(resource, &l) == 0);
    }
    need(::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &s.filter, 0, 0) == 0);
    ::execve(s.python, s.argv, s.envp);
    ::_exit(127);
}

long now_ms() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

// Closes its descriptor when it goes.
struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    void reset() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

// The code as the reader's stdin: a memfd written in full before the fork, so that nothing is
// written to a pipe that a reader which died no longer reads (SIGPIPE).
int code_file(std::string_view code) {
    const int fd = static_cast<int>(::syscall(SYS_memfd_create, "toolcage-python-code", MFD_CLOEXEC));
    if (fd < 0) return -1;
    std::size_t done = 0;
    while (done < code.size()) {
        const ssize_t w = ::write(fd, code.data() + done, code.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ::close(fd);
            return -1;
        }
        done += static_cast<std::size_t>(w);
    }
    if (::lseek(fd, 0, SEEK_SET) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

struct Collected {
    std::string out, err;
    bool deadline = false;
    bool too_long = false;
};

// Reads the reader's stdout and stderr to their ends, within the deadline and the bounds.
Collected collect(int out_fd, int err_fd, long deadline) {
    Collected c;
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* into[2] = {&c.out, &c.err};
    const std::size_t bound[2] = {kMaxReport, kMaxMessage};
    int open_ends = 2;
    char buf[65536];
    while (open_ends > 0) {
        const long left = deadline - now_ms();
        if (left <= 0) {
            c.deadline = true;
            return c;
        }
        const int r = ::poll(fds, 2, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            c.deadline = true;
            return c;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                fds[i].fd = -1;
                --open_ends;
                continue;
            }
            into[i]->append(buf, static_cast<std::size_t>(got));
            if (into[i]->size() > bound[i]) {
                if (i == 0) {
                    c.too_long = true;
                    return c;
                }
                into[i]->resize(bound[i]);
            }
        }
    }
    return c;
}

// Reaps the reader: killed when it is still there at the deadline. Returns its wait status.
int reap(pid_t pid, long deadline) {
    int status = 0;
    while (true) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) return status;
        if (w < 0 && errno != EINTR) return -1;
        if (now_ms() >= deadline) break;
        const timespec tick{0, 1000000L};
        ::nanosleep(&tick, nullptr);
    }
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return status;
}

// The message of the reader's stderr as one printable line.
std::string one_line(std::string s) {
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
    return s;
}

PythonReading failed(std::string why) { return {false, std::move(why), {}}; }

PythonReading parse_report(const std::string& report) {
    nlohmann::json j = nlohmann::json::parse(report, nullptr, false);
    if (j.is_discarded() || !j.is_array()) return failed("python3's report is not the JSON list of tokens");
    PythonReading r;
    r.tokens.reserve(j.size());
    for (const auto& t : j) {
        if (!t.is_array() || t.size() != 3 || !t[0].is_string() || !t[1].is_string() ||
            !t[2].is_number_integer())
            return failed("python3's report holds a token that is not [kind, text, line]");
        const std::string kind = t[0].get<std::string>();
        PyToken::Kind k;
        if (kind == "n")
            k = PyToken::Kind::name;
        else if (kind == "o")
            k = PyToken::Kind::op;
        else if (kind == "s")
            k = PyToken::Kind::string;
        else if (kind == "u")
            k = PyToken::Kind::number;
        else
            return failed("python3's report holds a token of the unknown kind \"" + one_line(kind) + "\"");
        std::string text = t[1].get<std::string>();
        if (k == PyToken::Kind::op && text.empty()) return failed("python3's report holds an empty operator");
        r.tokens.push_back({k, std::move(text), t[2].get<int>()});
    }
    r.ok = true;
    return r;
}

}  // namespace

PythonReading read_with_python(std::string_view code, const char* python) {
    if (kAuditArch == 0) return failed("python3 is not run to read code on this architecture");
    if (::access(python, X_OK) != 0)
        return failed(std::string(python) + " is not there to read the code (" + std::strerror(errno) + ")");
    Fd in(code_file(code));
    if (in.fd < 0) return failed(std::string("memfd_create() for the code: ") + std::strerror(errno));
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return failed(std::string("pipe2(): ") + std::strerror(errno));
    Fd out_r(out_pipe[0]), out_w(out_pipe[1]);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) return failed(std::string("pipe2(): ") + std::strerror(errno));
    Fd err_r(err_pipe[0]), err_w(err_pipe[1]);
    Fd ruleset(no_writes_ruleset());
    std::vector<sock_filter> filter = reader_filter();
    std::string arg0 = python, isolated = "-I", no_site = "-S", no_env = "-E", dash_c = "-c";
    std::string script = kChecker;
    char* argv[] = {arg0.data(), isolated.data(), no_site.data(), no_env.data(), dash_c.data(), script.data(), nullptr};
    char* envp[] = {nullptr};
    ReaderSetup setup{python, in.fd, out_w.fd, err_w.fd, ruleset.fd,
                      sock_fprog{static_cast<unsigned short>(filter.size()), filter.data()}, argv, envp};
    // A SIGCHLD left ignored by whoever started us would make the kernel reap the reader, and
    // its exit status, the verdict's ground, would be lost.
    ::signal(SIGCHLD, SIG_DFL);
    const long deadline = now_ms() + kDeadlineMs;
    const pid_t pid = ::fork();
    if (pid < 0) return failed(std::string("fork(): ") + std::strerror(errno));
    if (pid == 0) become_reader(setup);
    out_w.reset();
    err_w.reset();
    Collected c = collect(out_r.fd, err_r.fd, deadline);
    if (c.deadline || c.too_long) ::kill(pid, SIGKILL);
    const int status = reap(pid, deadline);
    if (c.deadline) return failed("python3 did not read the code within " + std::to_string(kDeadlineMs) + " ms");
    if (c.too_long) return failed("python3's report of the code is longer than 16 MiB");
    if (status == -1 || !WIFEXITED(status)) return failed("python3 was killed while reading the code, or its status was lost");
    const int rc = WEXITSTATUS(status);
    if (rc == 126) return failed("python3 could not be confined to read the code");
    if (rc == 127) return failed(std::string(python) + " could not be started");
    if (rc == 3) return failed("python3 reads it as: " + one_line(c.err));
    if (rc != 0) return failed("python3 failed to read the code (exit " + std::to_string(rc) + ")");
    return parse_report(c.out);
}

}  // namespace toolcage::hook
