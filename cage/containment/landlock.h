// Landlock for the cage: which rights the kernel's ABI can enforce, the ruleset built from a
// policy's read/write/execute lists, and an honest report of what was enforced.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cage/step/workspace.h"

namespace toolcage::cage {

enum class Enforcement { full, partial, none };
std::string_view to_string(Enforcement e);

// One right of the table: what it guards and the ABI that brought it. `required` rights make
// the difference between "fully" and "partially" enforced; the others have a second fence.
struct LandlockRight {
    std::string_view name;  // e.g. "fs.write_file"
    enum Kind { fs, net, scope } kind;
    std::uint64_t bit;
    int abi;
    bool required;
    std::string_view guards;
};
const std::vector<LandlockRight>& landlock_rights();

// The O_PATH descriptors a plan opened, closed together when the last rule holding them goes
// (with one close_range() when they are one block of numbers, as they usually are).
struct OpenedPaths {
    std::vector<int> fds;
    OpenedPaths() = default;
    OpenedPaths(const OpenedPaths&) = delete;
    OpenedPaths& operator=(const OpenedPaths&) = delete;
    ~OpenedPaths();
};

struct PathRule {
    std::string path;
    std::uint64_t access = 0;  // already masked for files and for the ABI
    bool is_dir = true;
    // The O_PATH descriptor the plan looked at the path through, kept open by `opened`: the
    // rule lands on the very file that was stat'ed, for one path walk in all. -1: the ruleset
    // opens the path by name.
    int fd = -1;
    std::shared_ptr<const OpenedPaths> opened = nullptr;
};

struct LandlockPlan {
    int abi = 0;  // the ABI used: the kernel's, capped at what toolcage knows (and by tests)
    int kernel_abi = 0;
    std::uint64_t handled_fs = 0;
    std::uint64_t handled_net = 0;
    std::uint64_t scoped = 0;
    std::vector<PathRule> rules;
    std::optional<std::uint16_t> connect_port;  // the relay's port, the only TCP connect allowed
    bool private_network = false;  // TCP left to a private network namespace (no net rights)
    std::vector<std::string> notes;             // paths left out and why
    // What each path is granted, in first-seen order: the rules before the paths are opened.
    std::vector<std::pair<std::string, std::uint64_t>> wanted;
};

struct RightStatus {
    const LandlockRight* right;
    bool enforced;
    bool by_namespace = false;  // a net right the private network namespace stands in for
};

struct LandlockReport {
    int abi = 0;
    int kernel_abi = 0;
    Enforcement status = Enforcement::none;
    std::vector<RightStatus> rights;
    std::vector<std::string> missing;  // required rights the ABI lacks
    std::vector<std::string> notes;
    // One line: "Landlock ABI 7: fully enforced" or "... partially enforced (missing: ...)".
    std::string summary() const;
};

// The rules a policy asks for under a given ABI: each path is opened (O_PATH) and stat'ed
// through that descriptor, to tell files from directories and to skip those that do not exist.
LandlockPlan plan_landlock(const ExpandedCage& cage, int abi, int kernel_abi,
                           std::optional<std::uint16_t> relay_port);

// plan_landlock() in two halves, for a supervisor that starts the step's init while it opens
// the paths: the rights and what each path wants (no file touched), then the opening.
LandlockPlan plan_landlock_rights(const ExpandedCage& cage, int abi, int kernel_abi,
                                  std::optional<std::uint16_t> relay_port);
void open_landlock_paths(LandlockPlan& plan);
LandlockReport report_landlock(const LandlockPlan& plan);

// The step has a private network namespace (loopback only): its tests may bind and connect on
// any port there, so Landlock handles no network right; the report says what stands in.
void leave_network_to_namespace(LandlockPlan& plan);

// Creates the ruleset and adds every rule; returns its fd (close-on-exec), or -1 for ABI 0.
// Throws Error naming the failing call.
int build_landlock_ruleset(const LandlockPlan& plan);

// The same in two halves: the empty ruleset (its fd, or -1 for ABI 0), then the plan's rules
// added to it (a ruleset is one object, whoever holds a descriptor of it: rules added after a
// fork bind the child's restrict_self() as well). Both throw Error naming the failing call.
int create_landlock_ruleset(const LandlockPlan& plan);
void add_landlock_rules(int ruleset_fd, const LandlockPlan& plan);

// In the step's process, after PR_SET_NO_NEW_PRIVS: landlock_restrict_self(fd, 0).
// Returns 0 or an errno; `what` receives the call as written.
int restrict_self(int ruleset_fd, std::string& what);
// The same with landlock_restrict_self() flags (ABI 7: which refusals the kernel audits).
int restrict_self(int ruleset_fd, std::uint32_t flags, std::string& what);

// Names of the rights in a mask, e.g. "read_file,read_dir".
std::string fs_rights_names(std::uint64_t access);

}  // namespace toolcage::cage
