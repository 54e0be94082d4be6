// A `toolcage run` for the tests: the same run_caged, with the policy loader from common/ and
// a stand-in relay (--relay-port) so that "TCP only to the relay's port" can be tested without
// a relay process. Usage: cage_runner [--policy P] [--workdir D] [--landlock-abi N]
//                                     [--relay-port N] [--best-effort] [--verbose] -- ARGV...
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cage/run.h"
#include "common/error.h"
#include "common/policy_loader.h"

int main(int argc, char** argv) {
    toolcage::cage::RunOptions o;
    o.policy = TOOLCAGE_SOURCE_DIR "/profiles/default.json";
    int relay_port = -1;
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cage_runner: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--policy")
            o.policy = value();
        else if (a == "--workdir")
            o.workdir = value();
        else if (a == "--landlock-abi")
            o.max_landlock_abi = std::atoi(value().c_str());
        else if (a == "--relay-port")
            relay_port = std::atoi(value().c_str());
        else if (a == "--best-effort")
            o.best_effort = true;
        else if (a == "--verbose")
            o.verbose = true;
        else {
            std::fprintf(stderr, "cage_runner: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    for (; i < argc; ++i) o.argv.emplace_back(argv[i]);
    o.load_policy = [](const std::string& p) { return toolcage::load_policy(p); };
    if (relay_port > 0)
        o.start_relay = [relay_port](const toolcage::RelayPolicy&, std::uint16_t inside_port) {
            toolcage::cage::RelayHandle h;
            h.port = inside_port ? inside_port : static_cast<std::uint16_t>(relay_port);
            h.url = "http://127.0.0.1:" + std::to_string(h.port);
            // In a private network the stand-in holds the socket the step sends and accepts
            // nothing: a connect to it succeeds (the kernel queues it), as to a listening relay.
            if (inside_port) h.serve = [](int listen_fd) { ::dup(listen_fd); };
            return h;
        };
    try {
        return toolcage::cage::run_caged(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "toolcage: %s\n", e.what());
        return 2;
    }
}
