#include "cage/doctor.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "cage/containment/interpreter.h"
#include "cage/containment/landlock_uapi.h"
#include "cage/containment/netns.h"
#include "cage/containment/seccomp_rules.h"
#include "cage/containment/step_init.h"
#include "cage/explain/landlock_audit.h"
#include "cage/integrity/change_store.h"
#include "cage/integrity/recover.h"
#include "cage/integrity/step_layer.h"
#include "cage/step/workspace.h"
#include "common/decision_log.h"
#include "common/user_home.h"
#include "common/workspace_choice.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

std::string resolved(const std::string& p) {
    std::error_code ec;
    auto r = fs::weakly_canonical(p, ec);
    return ec ? p : r.string();
}

bool covered_by(const std::string& file, const std::vector<std::string>& execute) {
    std::string f = resolved(file);
    for (const auto& e : execute) {
        std::string root = resolved(e);
        if (f == root) return true;
        if (root == "/" || (f.size() > root.size() && f.compare(0, root.size(), root) == 0 &&
                            f[root.size()] == '/'))
            return true;
    }
    return false;
}

}  // namespace

std::vector<std::string> interpreter_warnings(const std::vector<std::string>& execute) {
    std::vector<std::string> out;
    for (const auto& e : execute) {
        struct stat st {};
        if (::stat(e.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        auto interp = interpreter_of(e);
        if (!interp) continue;
        if (!covered_by(*interp, execute))
            out.push_back("execute entry " + e + " needs " + *interp +
                          ", which the policy cannot execute: add its directory to cage.execute");
    }
    return out;
}

DoctorReport diagnose(const Policy& policy, const std::string& workdir, int max_landlock_abi,
                      bool relay_linked) {
    DoctorReport r;
    r.kernel = probe_kernel(true);
    r.policy_name = policy.name;
    r.policy_file = policy.file;
    r.min_abi = policy.cage.min_abi;
    r.relay_enabled = policy.relay.enabled;
    r.protected_paths = policy.cage.protected_paths;
    r.seccomp_rules = seccomp_rules().size();

    // The workspace as `run` decides it, with the policy's work roots (common/workspace_choice.h).
    r.workspace = workspace::decide(
        workdir, workspace::with_roots(workspace::guarded_from_process(), policy.workspace.roots));
    StepPaths paths;
    paths.workdir = workdir;
    paths.workspace = r.workspace.ok() ? r.workspace.dir : workdir;
    paths.tmp = "/tmp/toolcage-STEP";  // made fresh by each run
    paths.home = user_home();          // as `run` has it: the user database's
    ExpandedCage cage = expand_cage_policy(policy.cage, paths);

    int abi = std::min(r.kernel.landlock_abi, landlock::kKnownAbi);
    if (max_landlock_abi >= 0) abi = std::min(abi, max_landlock_abi);
    std::optional<std::uint16_t> port;
    if (policy.relay.enabled) port = 0;  // the relay's port, chosen when it starts
    std::string network_refusal;
    NetworkMode mode = NetworkMode::landlock;
    try {
        mode = choose_network_mode(policy.cage.network, policy.name, {policy.relay.enabled, abi},
                                   r.network_note);
    } catch (const std::exception& e) {
        network_refusal = e.what();
    }
    r.network_mode = to_string(mode);
    if (mode == NetworkMode::netns) port.reset();
    LandlockPlan plan = plan_landlock(cage, abi, r.kernel.landlock_abi, port);
    if (mode == NetworkMode::netns) leave_network_to_namespace(plan);
    plan.notes.erase(
        std::remove_if(plan.notes.begin(), plan.notes.end(),
                       [&](const std::string& n) { return n.rfind(paths.tmp, 0) == 0; }),
        plan.notes.end());
    for (const auto& n : cage.notes) plan.notes.push_back(n);
    r.landlock = report_landlock(plan);
    r.rules = plan.rules;

    r.would_run = true;
    if (!r.workspace.ok()) {
        r.would_run = false;
        r.refusal = r.workspace.reason;
    } else if (abi < policy.cage.min_abi) {
        r.would_run = false;
        r.refusal = "the policy needs Landlock ABI " + std::to_string(policy.cage.min_abi) +
                    " (cage.min_abi); the kernel offers " + std::to_string(abi);
    } else if (!r.kernel.seccomp_filter) {
        r.would_run = false;
        r.refusal = "seccomp filters are not available";
    } else if (!network_refusal.empty()) {
        r.would_run = false;
        r.refusal = network_refusal;
    } else if (policy.relay.enabled && !relay_linked) {
        r.would_run = false;
        r.refusal = "relay not available: the policy sets relay.enabled";
    }
    r.pid_namespace = can_make_step_namespace(&r.pid_namespace_why);
    r.warnings = interpreter_warnings(cage.execute);
    if (r.pid_namespace) {
        r.read_only_mounts = can_make_mounts_read_only(&r.read_only_mounts_why);
        r.step_network = can_make_step_network(&r.step_network_why);
    } else {
        r.read_only_mounts_why = r.step_network_why = "no mount namespace for steps";
    }
    // The layer: the policy's choice, what run checks before a step, then a real mount.
    if (policy.cage.layer == "off") {
        r.layer_why = "cage.layer is \"off\" in the policy";
    } else if (landlock_protection_requested(policy.cage)) {
        r.layer_why = "cage.protect is \"landlock\": its rules are on the workspace's own files";
    } else if (!r.pid_namespace) {
        r.layer_why = "no mount namespace for steps";
    } else {
        // Where the upper directories go; before toolcage's state is made, its parent's file
        // system is what it will be on.
        std::string root = changes_root(false);
        if (root.empty()) {
            std::error_code ec;
            fs::path p = fs::path(primary_state_dir()).parent_path();
            while (p.has_parent_path() && p != p.root_path() && !fs::is_directory(p, ec))
                p = p.parent_path();
            root = p.string();
        }
        r.layer_why = layer_refusal(paths.workspace, root);
        if (r.layer_why.empty()) r.layer = can_make_step_layer(root, &r.layer_why);
    }
    if (!r.read_only_mounts)
        r.warnings.push_back("mounts are not read-only in steps (" + r.read_only_mounts_why +
                             "): a step can change the mode, times and extended attributes of any "
                             "file the user owns (chmod 644 ~/.ssh/id_ed25519), not only in its "
                             "write grants; Landlock governs opens only");
    if (!r.step_network)
        r.warnings.push_back("no network namespace for steps without a relay (" +
                             r.step_network_why +
                             "): they see the host's /proc/net (its sockets and connections)");
    if (!r.pid_namespace)
        r.warnings.push_back(
            "no PID namespace for steps (" + r.pid_namespace_why +
            "): other processes' /proc/PID entries (command lines, environments of "
            "the same user) are readable from a step, /dev/shm and /dev/pts are not "
            "granted, and a step's daemon outlives a killed supervisor until the next "
            "run or hook for the workspace kills it");
    r.audit_mode = policy.mode == "audit";
    r.state_dir = state_dir(false);
    for (const auto& d : state_dir_candidates())
        if (struct stat st{}; ::lstat(d.c_str(), &st) == 0)
            if (std::string p = private_dir_problem(d); !p.empty())
                r.warnings.push_back(
                    "toolcage's state directory " + p +
                    ": it is not used (journals and the "
                    "decision log go elsewhere); make it the user's, mode 0700, or remove it");
    if (std::string why = refused_log_variable(); !why.empty()) r.warnings.push_back(why);
    // A state directory named for a test suite and refused: this doctor was meant for another
    // state than the user's, so it leaves the user's journals as they are.
    if (std::string why = refused_state_variable(); !why.empty()) {
        r.warnings.push_back(why);
        r.housekeeping.push_back(
            "skipped: $TOOLCAGE_STATE_DIR is set but ignored, and the journals of the state in "
            "use are not this run's to tidy");
    } else {
        r.housekeeping = journal_housekeeping();
        for (auto& line : changes_housekeeping()) r.housekeeping.push_back(std::move(line));
    }
    if (r.kernel.landlock_abi >= 7) {
        AuditAvailability a = landlock_audit_availability();
        r.refusal_source = a.readable
                               ? "the kernel's Landlock audit records"
                               : "the step's stderr (Landlock's audit records: " + a.why + ")";
    } else {
        r.refusal_source = "the step's stderr (Landlock audit records need ABI 7, Linux 6.15+)";
    }
    if (r.kernel.landlock_abi > landlock::kKnownAbi)
        r.warnings.push_back("the kernel's Landlock ABI " + std::to_string(r.kernel.landlock_abi) +
                             " is newer than toolcage knows (" +
                             std::to_string(landlock::kKnownAbi) + "): update toolcage");
    if (!policy.cage.protected_paths.empty())
        r.warnings.push_back(
            "protected_paths are not enforced by Landlock (it cannot take a "
            "right away beneath a granted directory)");
    return r;
}

namespace {

std::string network_text(const DoctorReport& r) {
    if (r.network_mode == "netns")
        return r.relay_enabled ? "private network namespace: loopback only; out through the relay"
                               : "private network namespace: loopback only, no way out";
    const auto& missing = r.landlock.missing;
    if (std::find(missing.begin(), missing.end(), "net.connect_tcp") != missing.end())
        return "TCP not restricted: Landlock ABI " + std::to_string(r.landlock.abi) +
               " has no network rights";
    return r.relay_enabled ? "TCP connect to the relay's port only"
                           : "closed: no TCP connect or bind, loopback included (a test suite "
                             "that serves on loopback needs cage.network \"netns\")";
}

}  // namespace

// How a step's changes to what configures tools are held (cage/integrity/held_changes.h): on the
// snapshot mechanism everywhere for now; an overlay layer in the step's user and mount namespaces
// is not built.
std::string held_changes_text(const DoctorReport& r) {
    if (r.layer)
        return "a layer: each step writes into an overlay over the workspace, in toolcage's state; "
               "when it ends "
               "its changes land, those of the hold class and the protected paths held for "
               "toolcage land";
    return "snapshot and restore (no layer: " + r.layer_why +
           "): before each step the workspace's hold class is kept, after it what the step changed "
           "there is put "
           "back and kept aside for toolcage land";
}

nlohmann::json to_json(const DoctorReport& r) {
    using nlohmann::json;
    json rights = json::array();
    for (const auto& s : r.landlock.rights)
        rights.push_back({{"right", s.right->name},
                          {"abi", s.right->abi},
                          {"enforced", s.enforced},
                          {"by", s.by_namespace ? "network namespace" : "landlock"},
                          {"required", s.right->required},
                          {"guards", s.right->guards}});
    json rules = json::array();
    for (const auto& p : r.rules)
        rules.push_back(
            {{"path", p.path}, {"access", fs_rights_names(p.access)}, {"dir", p.is_dir}});
    return {
        {"kernel",
         {{"release", r.kernel.release},
          {"landlock_abi", r.kernel.landlock_abi},
          {"landlock_errata", r.kernel.landlock_errata},
          {"landlock_known_abi", landlock::kKnownAbi},
          {"seccomp_filter", r.kernel.seccomp_filter},
          {"seccomp_kill_process", r.kernel.seccomp_kill_process},
          {"unprivileged_userns", r.kernel.unprivileged_userns == 1},
          {"pidfd", r.kernel.pidfd},
          {"cap_last_cap", r.kernel.cap_last_cap}}},
        {"policy",
         {{"name", r.policy_name},
          {"file", r.policy_file},
          {"min_abi", r.min_abi},
          {"mode", r.audit_mode ? "audit" : "enforce"}}},
        {"would_run", r.would_run},
        {"refusal", r.refusal},
        {"workspace",
         {{"ok", r.workspace.ok()},
          {"dir", r.workspace.dir},
          {"reason", r.workspace.reason},
          {"root", r.workspace.root}}},
        {"landlock",
         {{"abi", r.landlock.abi},
          {"status", to_string(r.landlock.status)},
          {"missing", r.landlock.missing},
          {"rights", rights},
          {"rules", rules},
          {"notes", r.landlock.notes}}},
        {"seccomp", {{"rules", r.seccomp_rules}, {"foreign_arch", "killed"}}},
        {"network", network_text(r)},
        {"network_mode", r.network_mode},
        {"network_note", r.network_note},
        {"pid_namespace", r.pid_namespace},
        {"pid_namespace_why", r.pid_namespace_why},
        {"read_only_mounts", r.read_only_mounts},
        {"read_only_mounts_why", r.read_only_mounts_why},
        {"step_network", r.step_network},
        {"step_network_why", r.step_network_why},
        {"warnings", r.warnings},
        {"refusal_source", r.refusal_source},
        {"state_dir", r.state_dir},
        {"housekeeping", r.housekeeping},
        {"held_changes", held_changes_text(r)},
        {"layer", r.layer},
        {"layer_why", r.layer_why},
    };
}

namespace {

constexpr const char* kAuditWarning =
    "  !!! AUDIT MODE: this policy has \"mode\": \"audit\". The hook lets EVERY call through\n"
    "  !!! (nothing is denied, asked or caged) and only logs what it would have decided.\n"
    "  !!! Review with `toolcage log --stats`, then set \"mode\": \"enforce\".\n";

}  // namespace

std::string to_text(const DoctorReport& r) {
    std::ostringstream o;
    const auto& k = r.kernel;
    o << "kernel " << k.release << '\n';
    o << "  Landlock:         ";
    if (k.landlock_abi > 0)
        o << "ABI " << k.landlock_abi << " (toolcage knows up to " << landlock::kKnownAbi << ")";
    else
        o << "absent: " << k.landlock_why;
    o << '\n';
    o << "  seccomp filters:  " << (k.seccomp_filter ? "yes" : "no")
      << (k.seccomp_kill_process ? " (kill_process)" : "") << '\n';
    o << "  user namespaces:  "
      << (k.unprivileged_userns == 1 ? "available" : "not available " + k.userns_why) << '\n';
    o << "  pidfd:            " << (k.pidfd ? "yes" : "no") << '\n';
    o << "  refusals named from " << r.refusal_source << '\n';
    o << "\npolicy \"" << r.policy_name << "\" (" << r.policy_file << ")\n";
    if (r.audit_mode) o << kAuditWarning;
    o << "  " << r.landlock.summary() << '\n';
    for (const auto& s : r.landlock.rights) {
        std::string state = s.by_namespace ? "by the private network namespace"
                            : s.enforced   ? "enforced"
                            : s.right->required
                                ? "NOT ENFORCED (needs ABI " + std::to_string(s.right->abi) + ")"
                                : "not available (ABI " + std::to_string(s.right->abi) + ")";
        o << "    " << s.right->name
          << std::string(28 - std::min<std::size_t>(27, s.right->name.size()), ' ') << state << ": "
          << s.right->guards << '\n';
    }
    o << "  paths:\n";
    for (const auto& p : r.rules)
        o << "    " << p.path << ": " << fs_rights_names(p.access) << '\n';
    for (const auto& n : r.landlock.notes) o << "    note: " << n << '\n';
    o << "  seccomp: " << r.seccomp_rules
      << " rules (sockets, io_uring, ptrace, mounts, namespaces, bpf, ...); x32 and ia32 killed\n";
    o << "  network (" << r.network_mode << "): " << network_text(r) << '\n';
    o << "  processes: "
      << (r.pid_namespace
              ? "a PID namespace per step: /proc shows the step's processes only; a private "
                "/dev/shm and /dev/pts; every process ends with the supervisor"
              : "no PID namespace (" + r.pid_namespace_why +
                    "): other processes' /proc entries are visible")
      << '\n';
    o << "  file attributes: "
      << (r.read_only_mounts
              ? "every mount read-only in a step but its write grants: no chmod, chown, "
                "touch or xattr change outside them"
              : "mounts stay writable (" + r.read_only_mounts_why +
                    "): chmod, touch and xattrs reach any file the user owns")
      << '\n';
    o << "  host network view: "
      << (r.step_network
              ? "a step without a relay has a network namespace of its own (no host /proc/net)"
              : "steps without a relay see the host's /proc/net (" + r.step_network_why + ")")
      << '\n';
    if (!r.network_note.empty()) o << "    note: " << r.network_note << '\n';
    for (const auto& w : r.warnings) o << "  warning: " << w << '\n';
    o << "  state: " << (r.state_dir.empty() ? std::string("none yet") : r.state_dir)
      << (test_state_dir().empty()
              ? " (journal, decision log; from the user database)\n"
              : " (journal, decision log; a test suite's, from $TOOLCAGE_STATE_DIR)\n");
    for (const auto& h : r.housekeeping) o << "    housekeeping: " << h << '\n';
    o << "  held changes: " << held_changes_text(r) << '\n';
    o << (r.would_run ? "\n`toolcage run` would run with this policy.\n"
                      : "\n`toolcage run` would refuse: " + r.refusal + "\n");
    if (r.audit_mode) o << kAuditWarning;
    return o.str();
}

}  // namespace toolcage::cage
