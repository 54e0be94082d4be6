#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "cage/containment/landlock.h"
#include "cage/containment/landlock_uapi.h"
#include "cage/containment/probe.h"

using namespace toolcage::cage;
namespace ll = toolcage::landlock;

TEST_CASE("the Landlock header knows at least the running kernel's ABI", "[cage][landlock]") {
    int abi = probe_landlock_abi();
    INFO("kernel Landlock ABI " << abi << ", header knows " << ll::kKnownAbi);
    if (abi > ll::kKnownAbi)
        WARN("the kernel is newer than cage/containment/landlock_uapi.h: add its rights");
    CHECK(abi >= 1);  // this project's kernels all have Landlock
    // Every right the kernel reports must be in our header: creating a ruleset that handles
    // exactly the header's rights for the kernel's ABI must be accepted.
    int use = std::min(abi, ll::kKnownAbi);
    ll::RulesetAttr attr{ll::fs_rights_for_abi(use), ll::net_rights_for_abi(use),
                         ll::scopes_for_abi(use)};
    long fd = ::syscall(ll::kSysCreateRuleset, &attr, sizeof attr, 0U);
    CHECK(fd >= 0);
    if (fd >= 0) ::close(static_cast<int>(fd));
    // And one right more than the kernel knows is refused (so the table is not too generous).
    if (use < ll::kKnownAbi) {
        ll::RulesetAttr more{ll::fs_rights_for_abi(ll::kKnownAbi), 0, 0};
        CHECK(::syscall(ll::kSysCreateRuleset, &more, sizeof more, 0U) < 0);
    }
}

TEST_CASE("rights per ABI follow the kernel's history", "[cage][landlock]") {
    CHECK(ll::fs_rights_for_abi(0) == 0);
    CHECK(ll::fs_rights_for_abi(1) == 0x1fff);
    CHECK((ll::fs_rights_for_abi(2) & ll::kFsRefer));
    CHECK(!(ll::fs_rights_for_abi(2) & ll::kFsTruncate));
    CHECK((ll::fs_rights_for_abi(3) & ll::kFsTruncate));
    CHECK(ll::fs_rights_for_abi(4) == ll::fs_rights_for_abi(3));
    CHECK((ll::fs_rights_for_abi(5) & ll::kFsIoctlDev));
    CHECK(!(ll::fs_rights_for_abi(8) & ll::kFsResolveUnix));
    CHECK((ll::fs_rights_for_abi(9) & ll::kFsResolveUnix));
    CHECK(ll::net_rights_for_abi(3) == 0);
    CHECK(ll::net_rights_for_abi(4) == (ll::kNetBindTcp | ll::kNetConnectTcp));
    CHECK(ll::scopes_for_abi(5) == 0);
    CHECK(ll::scopes_for_abi(6) == (ll::kScopeAbstractUnixSocket | ll::kScopeSignal));
}

TEST_CASE("plan: directory-only rights are masked off files; missing paths are skipped with a note",
          "[cage][landlock]") {
    ExpandedCage cage;
    cage.read = {"/usr", "/no/such/dir"};
    cage.write = {"/dev/null", "/tmp"};
    cage.execute = {"/usr"};
    LandlockPlan plan = plan_landlock(cage, 7, 7, std::nullopt);
    REQUIRE(plan.rules.size() == 3);
    CHECK(plan.rules[0].path == "/usr");
    CHECK(plan.rules[0].access == (ll::kFsReadFile | ll::kFsReadDir | ll::kFsExecute));
    CHECK(plan.rules[1].path == "/dev/null");
    CHECK_FALSE(plan.rules[1].is_dir);
    CHECK((plan.rules[1].access & ~ll::kFsFileRights) == 0);
    CHECK((plan.rules[1].access & ll::kFsWriteFile));
    CHECK(plan.rules[2].path == "/tmp");
    CHECK((plan.rules[2].access & ll::kFsMakeReg));
    CHECK_FALSE((plan.rules[2].access & (ll::kFsMakeChar | ll::kFsMakeBlock | ll::kFsMakeSock)));
    REQUIRE(plan.notes.size() == 1);
    CHECK(plan.notes[0].find("/no/such/dir: skipped") == 0);
    CHECK_FALSE(plan.connect_port);
}

TEST_CASE("plan: rights the ABI lacks are dropped from handled sets and rules",
          "[cage][landlock]") {
    ExpandedCage cage;
    cage.write = {"/tmp"};
    LandlockPlan plan = plan_landlock(cage, 3, 7, std::uint16_t{8080});
    CHECK(plan.handled_net == 0);
    CHECK(plan.scoped == 0);
    CHECK_FALSE(plan.connect_port);  // no net rights to carry a port rule
    CHECK_FALSE((plan.rules[0].access & ll::kFsIoctlDev));
    CHECK((plan.rules[0].access & ll::kFsTruncate));
    LandlockPlan four = plan_landlock(cage, 4, 7, std::uint16_t{8080});
    REQUIRE(four.connect_port);
    CHECK(*four.connect_port == 8080);
}

TEST_CASE("report: fully, partially (naming what is missing), not enforced", "[cage][landlock]") {
    ExpandedCage cage;
    cage.read = {"/usr"};
    LandlockReport full = report_landlock(plan_landlock(cage, 7, 7, std::nullopt));
    CHECK(full.status == Enforcement::full);
    CHECK(full.missing.empty());
    CHECK(full.summary() == "Landlock ABI 7: fully enforced");

    LandlockReport three = report_landlock(plan_landlock(cage, 3, 7, std::nullopt));
    CHECK(three.status == Enforcement::partial);
    CHECK(three.missing == std::vector<std::string>{"fs.ioctl_dev", "net.bind_tcp",
                                                    "net.connect_tcp", "scope.abstract_unix_socket",
                                                    "scope.signal"});
    CHECK(three.summary().find(
              "Landlock ABI 3 (kernel: 7): partially enforced (missing: fs.ioctl_dev") == 0);

    LandlockReport none = report_landlock(plan_landlock(cage, 0, 7, std::nullopt));
    CHECK(none.status == Enforcement::none);
}

TEST_CASE("the built ruleset is enforced by the kernel", "[cage][landlock]") {
    ExpandedCage cage;
    cage.read = {"/usr", "/lib", "/lib64", "/etc"};
    LandlockPlan plan = plan_landlock(cage, std::min(probe_landlock_abi(), ll::kKnownAbi),
                                      probe_landlock_abi(), std::nullopt);
    int fd = build_landlock_ruleset(plan);
    REQUIRE(fd >= 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        std::string what;
        if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || restrict_self(fd, what) != 0)
            _exit(10);
        if (::open("/etc/hostname", O_RDONLY) < 0) _exit(11);       // read list
        if (::open("/proc/self/status", O_RDONLY) >= 0) _exit(12);  // not in it
        if (::open("/etc/hostname", O_WRONLY) >= 0) _exit(13);      // no write anywhere
        _exit(0);
    }
    ::close(fd);
    int st = 0;
    ::waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
}

TEST_CASE("plan: each path is opened once, and its descriptors close with the plan's last rule",
          "[cage][landlock]") {
    ExpandedCage cage;
    cage.read = {"/usr", "/etc/passwd", "/no/such/file"};
    cage.execute = {"/usr"};
    std::vector<int> fds;
    {
        LandlockPlan plan = plan_landlock(cage, 7, 7, std::nullopt);
        REQUIRE(plan.rules.size() == 2);
        for (const auto& r : plan.rules) {
            CHECK(r.fd >= 0);
            CHECK(::fcntl(r.fd, F_GETFD) == FD_CLOEXEC);
            fds.push_back(r.fd);
        }
        CHECK(fds[0] != fds[1]);
        std::vector<PathRule> copy = plan.rules;  // a copy keeps them open
        plan = LandlockPlan{};
        for (int fd : fds) CHECK(::fcntl(fd, F_GETFD) >= 0);
        int ruleset = build_landlock_ruleset([&] {
            LandlockPlan p;
            p.abi = 7;
            p.handled_fs = ll::fs_rights_for_abi(7);
            p.rules = copy;
            return p;
        }());
        CHECK(ruleset >= 0);
        if (ruleset >= 0) ::close(ruleset);
    }
    for (int fd : fds) CHECK(::fcntl(fd, F_GETFD) < 0);
}

TEST_CASE("opened paths close by runs of numbers and leave the numbers between alone",
          "[cage][landlock]") {
    std::vector<int> all;
    for (int i = 0; i < 7; ++i) {
        int fd = ::open("/dev/null", O_PATH | O_CLOEXEC);
        REQUIRE(fd >= 0);
        all.push_back(fd);
    }
    // Not every test run gets seven consecutive numbers; what counts is that the kept ones,
    // wherever they are, stay open.
    const std::vector<int> kept = {all[2], all[5]};
    {
        OpenedPaths opened;
        for (int fd : all)
            if (fd != kept[0] && fd != kept[1]) opened.fds.push_back(fd);
        opened.fds.push_back(opened.fds.front());  // named twice: closed once
    }
    for (int fd : all) {
        INFO(fd);
        const bool is_kept = fd == kept[0] || fd == kept[1];
        CHECK((::fcntl(fd, F_GETFD) >= 0) == is_kept);
    }
    for (int fd : kept) ::close(fd);
}
