// `toolcage doctor`: what the kernel offers the cage, and for a policy what `toolcage run`
// would enforce, right by right, with warnings for execute entries that could never run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cage/containment/landlock.h"
#include "cage/containment/probe.h"
#include "common/policy.h"
#include "common/workspace_choice.h"

namespace toolcage::cage {

struct DoctorReport {
    KernelFeatures kernel;
    std::string policy_name;
    std::string policy_file;
    int min_abi = 1;
    bool would_run = false;  // `run` (without --best-effort) would start a step
    std::string refusal;     // why not, when it would not
    workspace::Choice workspace;  // the workspace `run` decides for the working directory
    LandlockReport landlock;
    std::vector<PathRule> rules;
    std::size_t seccomp_rules = 0;
    bool relay_enabled = false;
    std::string network_mode;  // "netns" or "landlock": what `run` would use (cage.network)
    std::string network_note;  // why auto fell back to landlock
    std::vector<std::string> protected_paths;
    // The step's own PID and mount namespaces (cage/containment/step_init.h): other processes
    // hidden in /proc, a private /dev/shm and /dev/pts, every process gone with the supervisor.
    bool pid_namespace = false;
    std::string pid_namespace_why;  // why not
    // Every mount read-only but the write grants, in the step's mount namespace: mode, owner,
    // times and xattrs cannot change outside them. Without it only Landlock's opens are governed.
    bool read_only_mounts = false;
    std::string read_only_mounts_why;
    // A network namespace of the step's own for a step without a relay (no host /proc/net).
    bool step_network = false;
    std::string step_network_why;
    // The step writes into a layer over the workspace (cage/integrity/step_layer.h), or the
    // snapshot and restore is in effect, and why.
    bool layer = false;
    std::string layer_why;
    std::vector<std::string> warnings;
    bool audit_mode = false;  // the policy's "mode" is "audit": the hook refuses nothing
    // Where `run` learns what Landlock refused: the kernel's audit records, or the step's stderr.
    std::string refusal_source;
    // toolcage's own state directory (common/user_home.h), and what the journal housekeeping did
    // (cage/integrity/recover.h: journals of workspaces that no longer exist removed).
    std::string state_dir;
    std::vector<std::string> housekeeping;
};

// `workdir` stands for the step's working directory ({workspace} is its git top level);
// `relay_linked` says whether this toolcage can start a relay for a policy that enables one.
// Also runs the journal housekeeping (journal_housekeeping).
DoctorReport diagnose(const Policy& policy, const std::string& workdir, int max_landlock_abi,
                      bool relay_linked = false);

// Execute entries that are single files whose ELF or "#!" interpreter the policy cannot run.
std::vector<std::string> interpreter_warnings(const std::vector<std::string>& execute);

nlohmann::json to_json(const DoctorReport& r);
std::string to_text(const DoctorReport& r);

}  // namespace toolcage::cage
