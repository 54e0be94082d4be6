// A step's bash reads no start-up file, whatever its stdin: given a socket (as OpenClaw's exec
// gives its commands), bash would otherwise read /etc/bash.bashrc and ~/.bashrc as if sshd had
// started it. As root and as nobody, read-only and caged.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "cage/settings/step_shell.h"
#include "step_harness.h"

using namespace steptest;
using toolcage::cage::step_argv;
using Argv = std::vector<std::string>;

TEST_CASE("step_argv: bash -c gets --norc; anything else runs as given", "[cage][shell]") {
    CHECK(step_argv({"/bin/bash", "-c", "make test"}) == Argv{"/bin/bash", "--norc", "-c", "make test"});
    CHECK(step_argv({"bash", "-c", "ls"}) == Argv{"bash", "--norc", "-c", "ls"});
    CHECK(step_argv({"/usr/local/bin/bash", "-c", "ls", "name", "arg"}) ==
          Argv{"/usr/local/bin/bash", "--norc", "-c", "ls", "name", "arg"});
    for (const Argv& same : {Argv{"/bin/bash"}, Argv{"/bin/bash", "script.sh"}, Argv{"/bin/bash", "-lc", "ls"},
                             Argv{"/bin/sh", "-c", "ls"}, Argv{"/usr/bin/make", "-c"}, Argv{"bashful", "-c", "x"},
                             Argv{"/bin/bash", "--norc", "-c", "ls"}, Argv{}})
        CHECK(step_argv(same) == same);
}

TEST_CASE("a step's bash reads no ~/.bashrc when its stdin is a socket", "[cage][shell]") {
    for (As who : {As::root, As::nobody})
        for (bool read_only : {true, false}) {
            Scratch s;
            INFO(name_of(who) << (read_only ? ", read-only" : ", caged"));
            // A home the step may read, with a start-up file that says when it runs.
            s.policy["cage"]["env_set"]["HOME"] = s.ws;
            std::ofstream(s.ws + "/.bashrc") << "echo BASHRC-RAN\n";
            ::chmod((s.ws + "/.bashrc").c_str(), 0644);
            Argv args = {"run", "--policy", s.policy_file(), "--workdir", s.ws};
            if (read_only) args.push_back("--read-only");
            for (const char* a : {"--", "/bin/bash", "-c", "test -S /dev/stdin && echo stdin-socket; echo HOME=$HOME"})
                args.emplace_back(a);
            Launch how;
            how.who = who;
            how.socket_stdin = true;
            Result r = run_toolcage(s, args, how);
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("stdin-socket") != std::string::npos);
            CHECK(r.out.find("HOME=" + s.ws) != std::string::npos);
            CHECK(r.out.find("BASHRC-RAN") == std::string::npos);
            CHECK(r.out.find(".bashrc") == std::string::npos);
        }
}
