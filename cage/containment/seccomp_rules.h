// The cage's system call policy as data: one table of (system call, argument conditions,
// answer, reason). seccomp.cpp compiles it; everything not named here is allowed.
#pragma once

#include <seccomp.h>

#include <string_view>
#include <vector>

#include "cage/containment/seccomp.h"

namespace toolcage::cage {

// A rule matches when every comparison in one of its `alternatives` holds (an empty
// alternative matches every call). Each alternative becomes one libseccomp rule.
struct SeccompRule {
    std::string_view syscall;
    std::vector<std::vector<scmp_arg_cmp>> alternatives;
    int errno_value;  // EPERM, or ENOSYS where libc must fall back (clone3)
    std::string_view reason;
    bool host_network_only = false;  // lifted when the step has a private network namespace
};

const std::vector<SeccompRule>& seccomp_rules();

// True when `rule` is part of the filter for `variant`.
bool rule_applies(const SeccompRule& rule, SeccompVariant variant);

}  // namespace toolcage::cage
