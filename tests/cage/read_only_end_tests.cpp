// The read-only cage's end (cage/containment/step_init.h, end_fd): it returns as soon as its step
// ends, without waiting for the step's namespaces to go, and still with the step's own status; what
// the step left running (a daemon in a session of its own) is gone all the same. As root and as
// nobody, with and without user namespaces.
#include <sys/types.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "step_harness.h"
#include "tests/other_user.h"

using namespace steptest;
using namespace std::chrono_literals;

namespace {

bool gone_within(const std::string& needle, std::chrono::milliseconds limit) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (processes_with(needle).empty()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return processes_with(needle).empty();
}

}  // namespace

TEST_CASE("the read-only cage returns the step's status and leaves nothing running", "[cage][readonly]") {
    for (As who : {As::root, As::nobody})
        for (bool no_userns : {false, true}) {
            Scratch s;
            INFO(name_of(who) << (no_userns ? ", no user namespaces" : ""));
            Launch how{who, no_userns, {}};
            const std::string policy = s.policy_file();
            auto ro = [&](const std::string& script) {
                return run_toolcage(s, {"run", "--read-only", "--policy", policy, "--workdir", s.ws, "--",
                                        "/bin/bash", "-c", script},
                                    how);
            };
            Result r = ro("echo out; echo err >&2; exit 3");
            INFO(r.out);
            CHECK(r.status == 3);
            CHECK(r.out.find("out") != std::string::npos);
            CHECK(r.out.find("err") != std::string::npos);

            r = ro("kill -9 $$");
            CHECK(r.status == 137);

            // A daemon in a session of its own, holding no descriptor of the step's: nothing
            // waits for it, and it must not outlive the step.
            const std::string marker = "toolcage-ro-daemon-" + std::to_string(::getpid()) + (no_userns ? "-n" : "-u") +
                                       name_of(who);
            r = ro("setsid bash -c 'exec -a " + marker + " sleep 300' </dev/null >/dev/null 2>&1 & echo started");
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("started") != std::string::npos);
            CHECK(gone_within(marker, 3000ms));
        }
}

TEST_CASE("where the kernel refuses the step a fresh /proc, the step runs without its namespaces and the cage holds",
          "[cage][readonly]") {
    // The step's init fails at its /proc mount while the supervisor is adding the path rules:
    // the supervisor starts over without the namespaces, with every rule.
    for (As who : {As::root, As::nobody})
        for (bool read_only : {true, false}) {
            if (!read_only && !testsupport::can_switch_user()) {
                // The masked /proc comes from a user namespace that maps this user to uid 0, whose
                // home is not theirs: a caged step has no place for its journal there.
                WARN("skipped the caged case: only root keeps a state directory when mapped to root");
                continue;
            }
            Scratch s;
            INFO(name_of(who) << (read_only ? ", read-only" : ", caged"));
            Launch how{who, false, {}};
            how.masked_proc = true;
            std::vector<std::string> args = {"run", "--verbose", "--policy", s.policy_file(), "--workdir", s.ws};
            if (read_only) args.push_back("--read-only");
            for (const char* a : {"--", "/bin/sh", "-c", "echo ran; cat /etc/shadow /etc/hostname; echo x > f && echo wrote"})
                args.emplace_back(a);
            Result r = run_toolcage(s, args, how);
            INFO(r.out);
            CHECK(r.out.find("no PID namespace for the step") != std::string::npos);
            CHECK(r.out.find("ran") != std::string::npos);
            CHECK(r.out.find("/etc/hostname: Permission denied") != std::string::npos);
            CHECK(r.out.find("/etc/shadow: Permission denied") != std::string::npos);
            CHECK((r.out.find("wrote") != std::string::npos) == !read_only);
        }
}
