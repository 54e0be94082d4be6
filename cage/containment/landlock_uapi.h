// The kernel's Landlock user-space API, as far as toolcage knows it (ABI 1 to 9).
// Our own copy because Debian 12's <linux/landlock.h> stops at ABI 1 and lacks the newer structs.
#pragma once

#include <sys/syscall.h>

#include <cstdint>

namespace toolcage::landlock {

// System call numbers are the same on every architecture since 5.13 (the unified table).
#ifdef SYS_landlock_create_ruleset
inline constexpr long kSysCreateRuleset = SYS_landlock_create_ruleset;
inline constexpr long kSysAddRule = SYS_landlock_add_rule;
inline constexpr long kSysRestrictSelf = SYS_landlock_restrict_self;
#else
inline constexpr long kSysCreateRuleset = 444;
inline constexpr long kSysAddRule = 445;
inline constexpr long kSysRestrictSelf = 446;
#endif

// The newest ABI this header describes. A kernel reporting more is newer than toolcage:
// everything here still works, but rights it added are not handled (doctor warns).
inline constexpr int kKnownAbi = 9;

struct RulesetAttr {
    std::uint64_t handled_access_fs;
    std::uint64_t handled_access_net;  // ABI 4
    std::uint64_t scoped;              // ABI 6
};
// The kernel accepts a shorter struct from older callers; we pass the size the ABI knows.
inline constexpr unsigned long kRulesetAttrSizeAbi1 = 8;
inline constexpr unsigned long kRulesetAttrSizeAbi4 = 16;
inline constexpr unsigned long kRulesetAttrSizeAbi6 = 24;

struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowed_access;
    std::int32_t parent_fd;
};

struct __attribute__((packed)) NetPortAttr {  // ABI 4
    std::uint64_t allowed_access;
    std::uint64_t port;
};

static_assert(sizeof(RulesetAttr) == 24);
static_assert(sizeof(PathBeneathAttr) == 12);
static_assert(sizeof(NetPortAttr) == 16);

// landlock_create_ruleset() flags (with a NULL attr and size 0).
inline constexpr std::uint32_t kCreateRulesetVersion = 1U << 0;
inline constexpr std::uint32_t kCreateRulesetErrata = 1U
                                                      << 1;  // ABI 7 era: bitmask of fixed issues

// landlock_add_rule() rule types.
inline constexpr int kRulePathBeneath = 1;
inline constexpr int kRuleNetPort = 2;  // ABI 4

// Filesystem access rights.
inline constexpr std::uint64_t kFsExecute = 1ULL << 0;
inline constexpr std::uint64_t kFsWriteFile = 1ULL << 1;
inline constexpr std::uint64_t kFsReadFile = 1ULL << 2;
inline constexpr std::uint64_t kFsReadDir = 1ULL << 3;
inline constexpr std::uint64_t kFsRemoveDir = 1ULL << 4;
inline constexpr std::uint64_t kFsRemoveFile = 1ULL << 5;
inline constexpr std::uint64_t kFsMakeChar = 1ULL << 6;
inline constexpr std::uint64_t kFsMakeDir = 1ULL << 7;
inline constexpr std::uint64_t kFsMakeReg = 1ULL << 8;
inline constexpr std::uint64_t kFsMakeSock = 1ULL << 9;
inline constexpr std::uint64_t kFsMakeFifo = 1ULL << 10;
inline constexpr std::uint64_t kFsMakeBlock = 1ULL << 11;
inline constexpr std::uint64_t kFsMakeSym = 1ULL << 12;
inline constexpr std::uint64_t kFsRefer = 1ULL << 13;        // ABI 2
inline constexpr std::uint64_t kFsTruncate = 1ULL << 14;     // ABI 3
inline constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;     // ABI 5
inline constexpr std::uint64_t kFsResolveUnix = 1ULL << 16;  // ABI 9 (Linux 7.1)

// Network access rights (ABI 4).
inline constexpr std::uint64_t kNetBindTcp = 1ULL << 0;
inline constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;

// Scopes (ABI 6): IPC with processes outside the domain.
inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;
inline constexpr std::uint64_t kScopeSignal = 1ULL << 1;

// landlock_restrict_self() flags.
inline constexpr std::uint32_t kRestrictSelfLogSameExecOff = 1U << 0;    // ABI 7
inline constexpr std::uint32_t kRestrictSelfLogNewExecOn = 1U << 1;      // ABI 7
inline constexpr std::uint32_t kRestrictSelfLogSubdomainsOff = 1U << 2;  // ABI 7
inline constexpr std::uint32_t kRestrictSelfTsync = 1U << 3;             // ABI 8 (Linux 7.0)

// Rights that make sense on a regular file; the rest apply to a directory's content only and
// the kernel refuses a rule on a file that names them.
inline constexpr std::uint64_t kFsFileRights =
    kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev | kFsResolveUnix;

// Every filesystem right the given ABI knows.
constexpr std::uint64_t fs_rights_for_abi(int abi) {
    if (abi < 1) return 0;
    std::uint64_t r = (1ULL << 13) - 1;  // ABI 1: EXECUTE .. MAKE_SYM
    if (abi >= 2) r |= kFsRefer;
    if (abi >= 3) r |= kFsTruncate;
    if (abi >= 5) r |= kFsIoctlDev;
    if (abi >= 9) r |= kFsResolveUnix;
    return r;
}
constexpr std::uint64_t net_rights_for_abi(int abi) {
    return abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0;
}
constexpr std::uint64_t scopes_for_abi(int abi) {
    return abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0;
}

}  // namespace toolcage::landlock
