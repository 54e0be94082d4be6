// Compiling the seccomp rule table into a BPF program (before fork) and installing it in the
// step's process (last step before exec). Foreign architectures (x32, ia32) are killed.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

namespace toolcage::cage {

// The network a step has decides a few rules: on the host's network Landlock filters TCP only,
// so datagrams are refused; in a private network namespace (only loopback) they may pass.
enum class SeccompVariant { host_network, private_network };

struct SeccompProgram {
    std::vector<sock_filter> code;
};

// Throws Error naming the libseccomp call that failed.
SeccompProgram build_seccomp_program(SeccompVariant variant = SeccompVariant::host_network);

// The same program, compiled from the table at build time (what `run` installs).
const SeccompProgram& compiled_seccomp_program(
    SeccompVariant variant = SeccompVariant::host_network);

// seccomp(SECCOMP_SET_MODE_FILTER, 0, prog); needs PR_SET_NO_NEW_PRIVS first.
// Returns 0 or an errno; `what` receives the call as written.
int install_seccomp(const SeccompProgram& prog, std::string& what);

}  // namespace toolcage::cage
