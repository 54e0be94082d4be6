// The step's own PID and mount namespaces (in a user namespace), where the kernel allows them:
// a small init (pid 1) that dies with the supervisor, whatever signal ended it, and takes every
// process of the step with it; a fresh /proc that shows only the step's processes; a private,
// empty /dev/shm and /dev/pts; every mount read-only but the step's write grants (no chmod,
// chown, touch or xattr outside them); files the step must read in place of the home's (cargo's
// configuration without its token, cage/settings/cargo_config.h); where the step has no relay, a
// network namespace of its own (no host /proc/net).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace toolcage::cage {

struct CageSetup;

// A file the step reads at `target` in place of what is there: `text`, in a file of the step's
// private /dev/shm bind-mounted over it (and unlinked there), readable only.
struct FileCover {
    std::string text;
    std::string target;
};

struct StepNamespace {
    bool enabled = false;
    std::string uid_map;  // "UID UID 1": the caller's ids mapped to themselves
    std::string gid_map;
    std::uint64_t proc_access = 0;  // Landlock rights on the fresh /proc (the policy's /proc)
    std::uint64_t dev_access = 0;   // on the private /dev/shm, /dev/pts and /dev/ptmx
    long shm_mb = 1024;             // the private /dev/shm's size
    std::uint64_t cover_access = 0; // on each cover (reading a file)
    std::vector<FileCover> covers;
    // The write grants (directories and regular files; others are skipped): bound writable over
    // a view in which every other mount is read-only. Landlock governs opens; a read-only mount
    // also refuses what Landlock does not see: mode, owner, times and xattrs.
    std::vector<std::string> writable;
    // A network namespace of the step's own (CLONE_NEWNET with the others): for a step without
    // a relay on the host's network, where Landlock refuses TCP but /proc/net would show the
    // host's sockets. Dropped, and the step goes on without it, where the kernel refuses it.
    bool private_network = false;
    // The step's layer (cage/integrity/step_layer.h): an overlay mounted on `layer_target` (the
    // workspace) with it as the lower layer and `layer_upper`/`layer_work` (in toolcage's state,
    // which no step reaches) as the upper, before anything is made read-only, so that the step
    // writes into the layer and never into the workspace. Empty: no layer. The Landlock rules
    // for paths at or below the workspace (`layer_rules`: path and rights) are added here, after
    // the mount: a rule binds to an inode, and the step sees the overlay's, not the workspace's.
    // A mount that fails is reported as kind 'l' (the step then runs on the snapshot).
    std::string layer_target, layer_upper, layer_work;
    std::vector<std::pair<std::string, std::uint64_t>> layer_rules;
    // The init's end of a socket pair on which the supervisor sends one byte once it has added the
    // policy's path rules to the ruleset (it does so while the init sets up): the step starts
    // only then; EOF means the supervisor failed, and the init ends running nothing.
    int go_fd = -1;
};

// The rights and maps for a step of a ruleset handling `handled_fs`, whose /proc rule grants
// `proc_access` (0: /proc not readable).
StepNamespace plan_step_namespace(std::uint64_t handled_fs, std::uint64_t proc_access, long shm_mb);

// clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS, and CLONE_NEWNET for ns.private_network):
// the child is the namespace's init. It maps its ids, joins the step's cgroups (before /sys is
// read-only), makes every mount read-only but ns.writable, mounts /proc, /dev/shm and /dev/pts afresh and the covers over their targets
// (adding their Landlock rules to the setup's ruleset), waits for the supervisor's word on
// ns.go_fd, starts the step's process (enter_cage) and forwards the supervisor's
// signals to it until it ends, then writes its wait status to the setup's end_fd (when it has
// one) and exits with it; its end kills every process left in the namespace. Returns the init's pid, or -1 with errno set when the kernel refuses the
// namespaces (then the step runs without them). A failure inside is reported as kind 'p'.
pid_t start_step_in_namespace(const CageSetup& setup);

// For `toolcage doctor`: whether a step's namespaces can be made here and /proc mounted in
// them; `why` says why not.
bool can_make_step_namespace(std::string* why);

// For `toolcage doctor`: whether the step's namespaces can hold a network namespace too, and
// every mount be made read-only in them; `why` says why not.
bool can_make_step_network(std::string* why);
bool can_make_mounts_read_only(std::string* why);

// For `toolcage doctor`: whether a step's layer can be mounted with its upper directory in
// `state_dir` (an overlay in the step's user namespace, userxattr); `why` says why not.
bool can_make_step_layer(const std::string& state_dir, std::string* why);

// The overlay's options for a layer; "" when a path holds a character the options cannot carry
// (',', ':', '\\' or a newline): then the step runs without a layer.
std::string layer_mount_options(const std::string& lower, const std::string& upper, const std::string& work);

}  // namespace toolcage::cage
