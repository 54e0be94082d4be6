#include "cage/integrity/step_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cage/integrity/workspace_guard.h"
#include "common/error.h"
#include "common/user_home.h"

namespace toolcage::cage {

namespace {

using json = nlohmann::json;

// The journal file: a magic line, then one CBOR document.
constexpr std::string_view kMagic = "toolcage-journal 1\n";

std::string hex(const unsigned char* b, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[b[i] >> 4];
        out += digits[b[i] & 15];
    }
    return out;
}

std::string random_hex() {
    unsigned char b[8] = {};
    if (::getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) {
        unsigned long v = static_cast<unsigned long>(::getpid()) ^ (static_cast<unsigned long>(::time(nullptr)) << 20);
        for (unsigned char& c : b) c = static_cast<unsigned char>(v >>= 3);
    }
    return hex(b, sizeof b);
}

bool write_all(int fd, const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

std::string journal_root() {
    std::string state = state_dir(true);
    return state.empty() ? std::string() : state + "/journal";
}

std::vector<std::string> journal_roots() {
    std::vector<std::string> out;
    for (const auto& d : state_dir_candidates()) out.push_back(d + "/journal");
    return out;
}

std::string journal_dir(const std::string& workspace, const std::string& root) {
    if (root.empty()) return {};
    // FNV-1a over the path: a name of fixed length for any path.
    unsigned long long h = 1469598103934665603ULL;
    for (unsigned char c : workspace) h = (h ^ c) * 1099511628211ULL;
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(h >> (56 - 8 * i));
    return root + "/" + hex(b, 8);
}

unsigned long long process_start_time(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    char* p = nullptr;
    for (char* q = buf; *q; ++q)
        if (*q == ')') p = q;
    if (!p) return 0;
    // Fields after the command: state (3) ... starttime (22): the 20th after ')'.
    int field = 2;
    for (++p; *p && field < 22; ++p)
        if (*p == ' ') ++field;
    return std::strtoull(p, nullptr, 10);
}

void StepJournal::write(const std::string& snapshot) {
    json j = {{"workspace", record_.workspace},         {"policy", record_.policy},
              {"argv", record_.argv},                   {"tmpdir", record_.tmpdir},
              {"memory_cgroup", record_.memory_cgroup}, {"pid_namespace", record_.pid_namespace},
              {"step", record_.step},                   {"step_start", record_.step_start},
              {"snapshot", json::binary(std::vector<std::uint8_t>(snapshot.begin(), snapshot.end()))}};
    std::vector<std::uint8_t> cbor = json::to_cbor(j);
    std::string text(kMagic);
    text.append(cbor.begin(), cbor.end());
    int fd = -1;
    std::string tmp;
    for (int attempt = 0; attempt < 32 && fd < 0; ++attempt) {
        tmp = dir_ + "/.tmp-" + random_hex();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        // Another step of the workspace ending removes the directory when it finds it empty.
        if (fd < 0 && errno == ENOENT && make_private_dirs(dir_).empty()) continue;
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) throw Error("step journal " + tmp + ": " + syscall_error("open(O_CREAT|O_EXCL)", errno));
    if (!write_all(fd, text) || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw Error("step journal " + tmp + ": " + syscall_error("write()/flock()", err));
    }
    if (path_.empty()) path_ = dir_ + "/" + std::to_string(::getpid()) + "-" + random_hex() + ".journal";
    if (::rename(tmp.c_str(), path_.c_str()) != 0) {
        int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw Error("step journal " + path_ + ": " + syscall_error("rename()", err));
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

void StepJournal::begin(const WorkspaceGuard& guard, const StepRecord& record) {
    // The journal's directory is toolcage's own, found from the user database: a step can be
    // granted none of it (common/policy_loader.h), so what the next call obeys was written here.
    const std::string root = journal_root();
    if (root.empty()) {
        std::string why;
        for (const auto& d : state_dir_candidates()) {
            std::string p = private_dir_problem(d);
            why += (why.empty() ? "" : "; ") + (p.empty() ? d + ": cannot be made" : p);
        }
        throw Error("no place for the step's journal (" + why + "); make " + primary_state_dir() +
                    " a directory of the user's, mode 0700 (the journal holds the snapshot a "
                    "killed step is restored from)");
    }
    dir_ = journal_dir(record.workspace, root);
    struct stat st {};
    const bool fresh = ::lstat(dir_.c_str(), &st) != 0;
    if (std::string err = make_private_dirs(dir_); !err.empty())
        throw Error("step journal: " + err + "; make " + root + " writable");
    if (std::string p = private_dir_problem(dir_); !p.empty())
        throw Error("step journal: " + p + "; remove " + dir_ + " (toolcage makes it again, 0700)");
    // The workspace the directory is for, for the housekeeping (journal_housekeeping).
    if (fresh) {
        std::string ws = dir_ + "/workspace";
        int fd = ::open(ws.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            (void)write_all(fd, record.workspace + "\n");
            ::close(fd);
        }
    }
    record_ = record;
    snapshot_ = guard.to_journal();
    write(snapshot_);
}

void StepJournal::record_step(pid_t step, bool pid_namespace) {
    if (fd_ < 0) return;
    record_.pid_namespace = pid_namespace;
    record_.step = step;
    record_.step_start = process_start_time(step);
    try {
        write(snapshot_);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "toolcage run: warning: %s\n", e.what());
    }
}

void StepJournal::finish() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());
    ::close(fd_);
    fd_ = -1;
    // The workspace's directory stays for its next step: making a directory can cost
    // milliseconds on ext4 (cage/settings/step_tmpdir.h).
}

StepJournal::~StepJournal() { finish(); }

ReadJournal read_journal(int fd, const std::string& path) {
    // Only a journal toolcage wrote: a regular file of the user's, 0600, with one name.
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error("step journal " + path + ": " + syscall_error("fstat()", errno));
    if (!S_ISREG(st.st_mode)) throw Error("step journal " + path + ": not a regular file");
    if (st.st_uid != ::getuid())
        throw Error("step journal " + path + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                    std::to_string(::getuid()));
    if (st.st_mode & 077) throw Error("step journal " + path + ": group or others have rights on it (not 0600)");
    if (st.st_nlink != 1) throw Error("step journal " + path + ": it has other names (hard links)");
    std::string text;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error("step journal " + path + ": " + syscall_error("read()", errno));
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > (256u << 20)) throw Error("step journal " + path + ": larger than 256 MiB");
    }
    if (!text.starts_with(kMagic)) throw Error("step journal " + path + ": not a toolcage journal");
    try {
        json j = json::from_cbor(text.substr(kMagic.size()));
        ReadJournal r;
        r.record.workspace = j.at("workspace").get<std::string>();
        r.record.policy = j.at("policy").get<std::string>();
        r.record.argv = j.at("argv").get<std::vector<std::string>>();
        r.record.tmpdir = j.at("tmpdir").get<std::string>();
        r.record.memory_cgroup = j.at("memory_cgroup").get<std::string>();
        r.record.pid_namespace = j.at("pid_namespace").get<bool>();
        r.record.step = j.at("step").get<pid_t>();
        r.record.step_start = j.at("step_start").get<unsigned long long>();
        const auto& bin = j.at("snapshot").get_binary();
        r.snapshot.assign(bin.begin(), bin.end());
        return r;
    } catch (const json::exception& e) {
        throw Error("step journal " + path + ": " + e.what());
    }
}

}  // namespace toolcage::cage
