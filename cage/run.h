// `toolcage run`: one command inside the cage (Landlock, seccomp, limits, no capabilities,
// a filtered environment), supervised until nothing it started is left. Unprivileged.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/policy.h"

namespace toolcage::cage {

// A relay for one step: the only TCP port the cage may connect to.
struct RelayHandle {
    std::uint16_t port = 0;
    std::string url;             // http://toolcage:TOKEN@127.0.0.1:<port>, for the proxy variables
    std::function<void()> stop;  // called when the step is over
    // Set when the relay waits for its listening socket (made inside the step's private
    // network namespace): starts it on that socket. Throws Error when it cannot start.
    std::function<void(int listen_fd)> serve;
    // The relay's log and where this step's lines start in it; each of them carries "step":
    // step_id.
    std::string log_path;
    std::uintmax_t log_from = 0;
    std::string step_id;
    // With relay.inspect: toolcage's CA certificate (PEM), which the step is told to trust, and
    // each credential's variable with the placeholder the step holds instead of the secret.
    std::string ca_pem;
    std::vector<std::pair<std::string, std::string>> placeholders;
};
// `inside_port` 0: the relay listens on a free port of the host's loopback and runs at once.
// Otherwise the step's private network has the relay's socket on that port: the handle's
// `serve` starts the relay once the socket is there.
using RelayStarter = std::function<RelayHandle(const RelayPolicy&, std::uint16_t inside_port)>;

struct RunOptions {
    std::string policy = "default";  // a name or a file, given to load_policy
    std::function<Policy(const std::string&)> load_policy;
    std::string workdir;  // empty: the current directory
    // The workspace ({workspace}); empty: chosen from workdir (common/workspace_choice.h).
    // Refused, as a chosen one is, when it is /, a home or holds toolcage or an agent's files.
    std::string workspace;
    // A project started in a work root of the policy (cage/step/new_project.h): this directory,
    // made empty, is the step's working directory and its workspace.
    std::string new_project;
    // The read-only cage (cage/containment/read_only.h): no writes, no network, no relay, and so no
    // snapshot of the protected paths and no TMPDIR to make.
    bool read_only = false;
    bool best_effort = false;   // run even when the kernel falls short of the policy's min_abi
    int max_landlock_abi = -1;  // act as if the kernel offered at most this ABI (tests)
    bool verbose = false;       // print what was enforced even when it is everything
    // The step's id in its log line (common/step_id.h), as the hook's decision that started it
    // names it; empty: a fresh one. Anything but 16 hex characters is refused: it comes from
    // the agent's shell and only ever labels lines.
    std::string step_id;
    RelayStarter start_relay;  // empty: no relay linked in
    std::vector<std::string> argv;
};

// Runs argv in the cage and returns its exit status (128+n for a death by signal n; 126/127
// when it cannot be executed; 3 when the step changed a protected path of the workspace, which
// was then put back: cage/integrity/workspace_guard.h). Throws Error when the cage cannot be set
// up: nothing runs then.
int run_caged(const RunOptions& options);

}  // namespace toolcage::cage
