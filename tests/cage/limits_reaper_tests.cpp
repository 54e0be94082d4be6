#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "cage/containment/limits.h"
#include "cage/containment/reaper.h"

using namespace toolcage::cage;

TEST_CASE("limits: core dumps always off; zero means leave as is; sizes in MiB", "[cage][limits]") {
    toolcage::CageLimits l;
    l.nproc = 100;
    l.nofile = 0;
    l.fsize_mb = 2;
    l.cpu_seconds = 0;
    l.as_mb = 0;
    auto plan = plan_limits(l);
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].resource == RLIMIT_CORE);
    CHECK(plan[0].value == 0);
    CHECK(plan[1].resource == RLIMIT_NPROC);
    CHECK(plan[1].value == 100);
    CHECK(plan[2].resource == RLIMIT_FSIZE);
    CHECK(plan[2].value == 2u * 1024 * 1024);
}

TEST_CASE("limits apply, never above the current hard limit", "[cage][limits]") {
    pid_t pid = ::fork();
    if (pid == 0) {
        rlimit hard{64, 64};
        ::setrlimit(RLIMIT_NOFILE, &hard);
        std::string what;
        if (apply_limits({{RLIMIT_NOFILE, "RLIMIT_NOFILE", 4096}, {RLIMIT_CORE, "RLIMIT_CORE", 0}},
                         what))
            _exit(1);
        rlimit now{};
        ::getrlimit(RLIMIT_NOFILE, &now);
        _exit(now.rlim_cur == 64 && now.rlim_max == 64 ? 0 : 2);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    CHECK(WEXITSTATUS(st) == 0);
}

TEST_CASE("descendants are found through /proc, grandchildren included", "[cage][reaper]") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    pid_t child = ::fork();
    if (child == 0) {
        pid_t grand = ::fork();
        if (grand == 0) {
            ::pause();
            _exit(0);
        }
        ssize_t n = ::write(p[1], &grand, sizeof grand);
        (void)n;
        ::pause();
        _exit(0);
    }
    pid_t grand = 0;
    REQUIRE(::read(p[0], &grand, sizeof grand) == sizeof grand);
    auto d = list_descendants(::getpid());
    CHECK(std::find(d.begin(), d.end(), child) != d.end());
    CHECK(std::find(d.begin(), d.end(), grand) != d.end());
    ::kill(grand, SIGKILL);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(p[0]);
    ::close(p[1]);
}

TEST_CASE("exit status as a shell reports it", "[cage][reaper]") {
    CHECK(exit_code_of(0) == 0);
    CHECK(exit_code_of(3 << 8) == 3);
    CHECK(exit_code_of(SIGKILL) == 128 + SIGKILL);
}

// As root the process limit is a pids cgroup, joined by the step's process alone (cgroup v1:
// its one thread into `tasks`, which spares the system-wide lock cgroup.procs takes); whatever
// it starts afterwards is counted there too.
TEST_CASE("as root, the step's process and its children are in the pids cgroup",
          "[cage][limits]") {
    if (::geteuid() != 0) {
        WARN("not root: the limit is RLIMIT_NPROC, no cgroup");
        return;
    }
    PidsCgroup cg;
    std::string note = cg.create(777);
    if (!cg.active()) {
        WARN("no pids cgroup here: " << note);
        return;
    }
    pid_t pid = ::fork();
    if (pid == 0) {
        std::string what;
        if (cg.join(what) != 0) _exit(10);
        pid_t grandchild = ::fork();
        if (grandchild == 0) {
            std::ifstream f("/proc/self/cgroup");
            std::string line;
            while (std::getline(f, line))
                if (line.find("toolcage-nproc-777") != std::string::npos) _exit(0);
            _exit(11);
        }
        int st = 0;
        ::waitpid(grandchild, &st, 0);
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 12);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    std::ifstream max(cg.dir() + "/pids.max");
    std::string v;
    max >> v;
    CHECK(v == "777");
    ::rmdir(cg.dir().c_str());  // empty again: nothing of the test is left in it
}
