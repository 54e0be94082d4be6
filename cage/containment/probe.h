// What the running kernel offers the cage: Landlock's ABI, seccomp filters, unprivileged user
// namespaces and pidfds. Cheap calls only, except the user namespace test (doctor only).
#pragma once

#include <string>

namespace toolcage::cage {

// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): the ABI, or 0 when
// Landlock is absent or disabled (`why` then says which).
int probe_landlock_abi(std::string* why = nullptr);

struct KernelFeatures {
    std::string release;  // uname -r
    int landlock_abi = 0;
    std::string landlock_why;     // why 0, when it is
    int landlock_errata = 0;      // bitmask of fixed issues (ABI 7 kernels)
    bool seccomp_filter = false;  // SECCOMP_SET_MODE_FILTER available
    bool seccomp_kill_process = false;
    bool pidfd = false;
    int unprivileged_userns = -1;  // 1 yes, 0 no, -1 not tested
    std::string userns_why;
    int cap_last_cap = -1;
};

// With `test_userns`, forks a child that tries unshare(CLONE_NEWUSER).
KernelFeatures probe_kernel(bool test_userns);

// True when the seccomp filter mode is available (cheap; used by `run`).
bool probe_seccomp();

}  // namespace toolcage::cage
