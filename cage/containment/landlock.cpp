#include "cage/containment/landlock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "cage/containment/landlock_uapi.h"
#include "common/error.h"

namespace toolcage::cage {

namespace ll = toolcage::landlock;

std::string_view to_string(Enforcement e) {
    switch (e) {
        case Enforcement::full:
            return "fully enforced";
        case Enforcement::partial:
            return "partially enforced";
        case Enforcement::none:
            return "not enforced";
    }
    return "not enforced";
}

const std::vector<LandlockRight>& landlock_rights() {
    using K = LandlockRight::Kind;
    static const std::vector<LandlockRight> table = {
        {"fs.execute", K::fs, ll::kFsExecute, 1, true, "run programs only from execute paths"},
        {"fs.write_file", K::fs, ll::kFsWriteFile, 1, true,
         "open for writing only under write paths"},
        {"fs.read_file", K::fs, ll::kFsReadFile, 1, true, "open for reading only under read paths"},
        {"fs.read_dir", K::fs, ll::kFsReadDir, 1, true, "list directories only under read paths"},
        {"fs.remove_dir", K::fs, ll::kFsRemoveDir, 1, true,
         "remove directories only under write paths"},
        {"fs.remove_file", K::fs, ll::kFsRemoveFile, 1, true,
         "unlink files only under write paths"},
        {"fs.make_char", K::fs, ll::kFsMakeChar, 1, true, "never create character devices"},
        {"fs.make_dir", K::fs, ll::kFsMakeDir, 1, true,
         "create directories only under write paths"},
        {"fs.make_reg", K::fs, ll::kFsMakeReg, 1, true, "create files only under write paths"},
        {"fs.make_sock", K::fs, ll::kFsMakeSock, 1, true, "never create unix socket files"},
        {"fs.make_fifo", K::fs, ll::kFsMakeFifo, 1, true, "create fifos only under write paths"},
        {"fs.make_block", K::fs, ll::kFsMakeBlock, 1, true, "never create block devices"},
        {"fs.make_sym", K::fs, ll::kFsMakeSym, 1, true, "create symlinks only under write paths"},
        {"fs.refer", K::fs, ll::kFsRefer, 2, true,
         "no link or rename that moves a file to where it gains rights"},
        {"fs.truncate", K::fs, ll::kFsTruncate, 3, true, "truncate only under write paths"},
        {"fs.ioctl_dev", K::fs, ll::kFsIoctlDev, 5, true, "device ioctls only under write paths"},
        {"fs.resolve_unix", K::fs, ll::kFsResolveUnix, 9, false,
         "connect to pathname unix sockets (also refused by seccomp: no AF_UNIX sockets)"},
        {"net.bind_tcp", K::net, ll::kNetBindTcp, 4, true, "no TCP listening"},
        {"net.connect_tcp", K::net, ll::kNetConnectTcp, 4, true,
         "TCP connect only to the relay's port"},
        {"scope.abstract_unix_socket", K::scope, ll::kScopeAbstractUnixSocket, 6, true,
         "no abstract unix sockets of processes outside the cage"},
        {"scope.signal", K::scope, ll::kScopeSignal, 6, true,
         "no signals to processes outside the cage"},
    };
    return table;
}

std::string fs_rights_names(std::uint64_t access) {
    std::string out;
    for (const auto& r : landlock_rights()) {
        if (r.kind != LandlockRight::fs || !(access & r.bit)) continue;
        if (!out.empty()) out += ',';
        out += r.name.substr(3);
    }
    return out;
}

namespace {

constexpr std::uint64_t kReadAccess = ll::kFsReadFile | ll::kFsReadDir;
constexpr std::uint64_t kExecuteAccess = kReadAccess | ll::kFsExecute;
// No MAKE_CHAR, MAKE_BLOCK or MAKE_SOCK anywhere: a cage has no use for device nodes, and unix
// sockets are closed by seccomp too.
constexpr std::uint64_t kWriteAccess = kReadAccess | ll::kFsWriteFile | ll::kFsRemoveDir |
                                       ll::kFsRemoveFile | ll::kFsMakeDir | ll::kFsMakeReg |
                                       ll::kFsMakeSym | ll::kFsMakeFifo | ll::kFsRefer |
                                       ll::kFsTruncate | ll::kFsIoctlDev;

}  // namespace

LandlockPlan plan_landlock(const ExpandedCage& cage, int abi, int kernel_abi,
                           std::optional<std::uint16_t> relay_port) {
    LandlockPlan plan = plan_landlock_rights(cage, abi, kernel_abi, relay_port);
    open_landlock_paths(plan);
    return plan;
}

LandlockPlan plan_landlock_rights(const ExpandedCage& cage, int abi, int kernel_abi,
                                  std::optional<std::uint16_t> relay_port) {
    LandlockPlan plan;
    plan.abi = abi;
    plan.kernel_abi = kernel_abi;
    plan.handled_fs = ll::fs_rights_for_abi(abi);
    plan.handled_net = ll::net_rights_for_abi(abi);
    plan.scoped = ll::scopes_for_abi(abi);
    if (plan.handled_net && relay_port) plan.connect_port = relay_port;
    if (kernel_abi > ll::kKnownAbi)
        plan.notes.push_back("the kernel's Landlock ABI " + std::to_string(kernel_abi) +
                             " is newer than toolcage knows (" + std::to_string(ll::kKnownAbi) +
                             "): rights it added are not handled");

    // One rule per path, the union of what the lists grant it, in first-seen order.
    std::map<std::string, std::size_t> index;
    auto add = [&](const std::vector<std::string>& paths, std::uint64_t access) {
        for (const auto& p : paths) {
            auto [it, fresh] = index.emplace(p, plan.wanted.size());
            if (fresh) plan.wanted.emplace_back(p, 0);
            plan.wanted[it->second].second |= access;
        }
    };
    add(cage.read, kReadAccess);
    add(cage.list, ll::kFsReadDir);
    add(cage.execute, kExecuteAccess);
    add(cage.write, kWriteAccess);
    return plan;
}

void open_landlock_paths(LandlockPlan& plan) {
    auto opened = std::make_shared<OpenedPaths>();
    opened->fds.reserve(plan.wanted.size());
    for (const auto& [p, access] : plan.wanted) {
        int fd = ::open(p.c_str(), O_PATH | O_CLOEXEC);
        if (fd >= 0) opened->fds.push_back(fd);
        struct stat st {};
        if (fd < 0 || ::fstat(fd, &st) != 0) {
            plan.notes.push_back(p + ": skipped (" + std::string(std::strerror(errno)) + ")");
            continue;
        }
        PathRule rule{p, access & plan.handled_fs, S_ISDIR(st.st_mode), fd, opened};
        if (!rule.is_dir) rule.access &= ll::kFsFileRights;
        if (rule.access == 0) continue;
        plan.rules.push_back(std::move(rule));
    }
}

OpenedPaths::~OpenedPaths() {
    std::vector<int> sorted = fds;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Each run of consecutive numbers is ours alone: one call closes it.
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
        if (j == i || ::syscall(SYS_close_range, static_cast<unsigned>(sorted[i]),
                                static_cast<unsigned>(sorted[j]), 0U) != 0)
            for (std::size_t k = i; k <= j; ++k) ::close(sorted[k]);
        i = j + 1;
    }
}

void leave_network_to_namespace(LandlockPlan& plan) {
    plan.handled_net = 0;
    plan.connect_port.reset();
    plan.private_network = true;
}

LandlockReport report_landlock(const LandlockPlan& plan) {
    LandlockReport r;
    r.abi = plan.abi;
    r.kernel_abi = plan.kernel_abi;
    r.notes = plan.notes;
    for (const auto& right : landlock_rights()) {
        bool on = false;
        switch (right.kind) {
            case LandlockRight::fs:
                on = plan.handled_fs & right.bit;
                break;
            case LandlockRight::net:
                on = plan.handled_net & right.bit;
                break;
            case LandlockRight::scope:
                on = plan.scoped & right.bit;
                break;
        }
        bool by_namespace = right.kind == LandlockRight::net && plan.private_network;
        r.rights.push_back({&right, on || by_namespace, by_namespace});
        if (!on && !by_namespace && right.required) r.missing.emplace_back(right.name);
    }
    if (plan.abi < 1)
        r.status = Enforcement::none;
    else if (r.missing.empty())
        r.status = Enforcement::full;
    else
        r.status = Enforcement::partial;
    return r;
}

std::string LandlockReport::summary() const {
    std::string s = "Landlock ABI " + std::to_string(abi);
    if (abi != kernel_abi) s += " (kernel: " + std::to_string(kernel_abi) + ")";
    s += ": ";
    s += to_string(status);
    if (status == Enforcement::partial) {
        s += " (missing: ";
        for (std::size_t i = 0; i < missing.size(); ++i) s += (i ? ", " : "") + missing[i];
        s += ")";
    }
    return s;
}

int build_landlock_ruleset(const LandlockPlan& plan) {
    int fd = create_landlock_ruleset(plan);
    if (fd < 0) return fd;
    try {
        add_landlock_rules(fd, plan);
    } catch (...) {
        ::close(fd);
        throw;
    }
    return fd;
}

int create_landlock_ruleset(const LandlockPlan& plan) {
    if (plan.abi < 1) return -1;
    ll::RulesetAttr attr{plan.handled_fs, plan.handled_net, plan.scoped};
    unsigned long size = plan.abi >= 6   ? ll::kRulesetAttrSizeAbi6
                         : plan.abi >= 4 ? ll::kRulesetAttrSizeAbi4
                                         : ll::kRulesetAttrSizeAbi1;
    int fd = static_cast<int>(::syscall(ll::kSysCreateRuleset, &attr, size, 0U));
    if (fd < 0)
        throw Error(
            syscall_error("landlock_create_ruleset({fs=" + fs_rights_names(plan.handled_fs) +
                              "}, " + std::to_string(size) + ", 0)",
                          errno));
    return fd;
}

void add_landlock_rules(int fd, const LandlockPlan& plan) {
    if (fd < 0) return;
    auto fail = [](const std::string& call, int err) { throw Error(syscall_error(call, err)); };
    for (const auto& rule : plan.rules) {
        const bool by_name = rule.fd < 0 || !rule.opened;
        int pfd = by_name ? ::open(rule.path.c_str(), O_PATH | O_CLOEXEC) : rule.fd;
        if (pfd < 0) fail("open(\"" + rule.path + "\", O_PATH)", errno);
        ll::PathBeneathAttr pb{rule.access, pfd};
        long rc = ::syscall(ll::kSysAddRule, fd, ll::kRulePathBeneath, &pb, 0U);
        int err = errno;
        if (by_name) ::close(pfd);
        if (rc != 0)
            fail("landlock_add_rule(LANDLOCK_RULE_PATH_BENEATH, \"" + rule.path + "\", {" +
                     fs_rights_names(rule.access) + "})",
                 err);
    }
    if (plan.connect_port) {
        ll::NetPortAttr np{ll::kNetConnectTcp, *plan.connect_port};
        if (::syscall(ll::kSysAddRule, fd, ll::kRuleNetPort, &np, 0U) != 0)
            fail("landlock_add_rule(LANDLOCK_RULE_NET_PORT, connect_tcp, " +
                     std::to_string(*plan.connect_port) + ")",
                 errno);
    }
}

int restrict_self(int ruleset_fd, std::string& what) { return restrict_self(ruleset_fd, 0U, what); }

int restrict_self(int ruleset_fd, std::uint32_t flags, std::string& what) {
    if (ruleset_fd < 0) return 0;
    if (::syscall(ll::kSysRestrictSelf, ruleset_fd, flags) != 0) {
        what = "landlock_restrict_self(" + std::to_string(ruleset_fd) + ", " + std::to_string(flags) + ")";
        return errno;
    }
    ::close(ruleset_fd);
    return 0;
}

}  // namespace toolcage::cage
