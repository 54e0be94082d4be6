// What the cage refused during one step, and how to allow it: read after the step from the
// relay's log, the kernel's Landlock audit records (when readable) or the step's own stderr.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cage/containment/landlock.h"
#include "cage/step/workspace.h"

namespace toolcage::cage {

struct CageRefusal {
    std::string access;   // read, write, execute, connect
    std::string target;   // the path, or host:port / address:port
    std::string seen_by;  // "the relay", "Landlock (kernel audit record)", "the step's stderr"
    std::string reason;   // the relay's reason, or the kernel's blockers
    std::string field;    // the policy field that governs it (cage.write, relay.allow, ...)
    std::string fix;      // the entry to add, or why toolcage suggests none
    bool operator==(const CageRefusal&) const = default;
};

// "toolcage run: refused write /etc/x (seen by ...): <fix>": one line the agent reads.
std::string refusal_line(const CageRefusal& r);
nlohmann::json refusal_json(const CageRefusal& r);

// The rights the plan's rules grant on `path` (a rule on a directory covers what is below it).
std::uint64_t granted_rights(const LandlockPlan& plan, const std::string& path);

// True for a path toolcage never suggests opening to a step: the home directory itself, the
// credential files and directories under it (ssh keys, cloud and registry tokens, .gitconfig
// with its url.insteadOf tokens), the shell's start-up files and toolcage's own state.
bool never_suggested(const std::string& path, const std::string& home);

// How to allow a refused filesystem access: the policy field and the entry (with {workspace},
// {home} or {tmp} where they apply), or why none is suggested. `path` is absolute.
CageRefusal path_refusal(std::string access, const std::string& path, std::string seen_by,
                         std::string reason, const StepPaths& paths);

// The relay's refusals for the step tagged `step_id`, in its log from byte `from` on.
std::vector<CageRefusal> relay_refusals(const std::string& log_path, std::uintmax_t from,
                                        const std::string& step_id);

// One AUDIT_LANDLOCK_ACCESS record's text ("domain=… blockers=fs.make_reg path=\"/etc\" …"),
// as refusals (a record can name several blockers). Empty for what it cannot read.
std::vector<CageRefusal> audit_record_refusals(std::string_view record, const StepPaths& paths);

// Lines of the step's stderr that report a refusal (EACCES, "Permission denied", EPERM; npm's
// "path" line; a path said not to exist that is there but not granted), read against the plan:
// a path the cage grants is not the cage's refusal. `network_refused` when a
// line reports a connect the cage refused (no relay, or a program that ignores the proxy).
std::vector<CageRefusal> stderr_refusals(const std::vector<std::string>& lines,
                                         const LandlockPlan& plan, const StepPaths& paths,
                                         bool relay);

// A refusal the step's stderr reported without naming what was refused ("Permission denied"
// alone): said once, with how to see more.
inline constexpr std::string_view kUnplacedTarget = "without a named path or host";
bool is_unplaced(const CageRefusal& r);

// Lines that say the step could not resolve a name or reach a network ("Could not resolve
// host", EAI_AGAIN): one refusal saying that the policy (`policy_name`) has no network when
// `relay` is false, or that the step must use the relay when it is true.
std::vector<CageRefusal> network_refusals(const std::vector<std::string>& lines, bool relay,
                                          const std::string& policy_name);

// After the step: the programs it named (its argv, and the words of a `sh -c` script) that are
// in a directory left out of its PATH (`left_out`): there the step ran another program of the
// name or found none. One line naming each directory and why it was left out; "" when none.
std::string path_note(const std::vector<std::string>& argv, const std::vector<std::string>& left_out);

// cargo configuration files (cage/settings/cargo_config.h) the step had to read unfiltered, without
// a mount namespace to cover them, named in a line of its stderr (cargo names the file on one line
// and "Permission denied" on another): one refusal each, saying how to make it readable.
std::vector<CageRefusal> unread_cargo_config_refusals(const std::vector<std::string>& lines,
                                                      const std::vector<std::string>& files);

// Same refusal twice (several sources, a program retrying): kept once, in order.
void drop_duplicates(std::vector<CageRefusal>& v);

}  // namespace toolcage::cage
