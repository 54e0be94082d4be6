#include "cage/run.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "cage/containment/capabilities.h"
#include "cage/containment/landlock.h"
#include "cage/containment/landlock_uapi.h"
#include "cage/containment/launcher.h"
#include "cage/containment/limits.h"
#include "cage/containment/netns.h"
#include "cage/containment/probe.h"
#include "cage/containment/read_only.h"
#include "cage/containment/reaper.h"
#include "cage/containment/seccomp.h"
#include "cage/explain/landlock_audit.h"
#include "cage/explain/refusals.h"
#include "cage/explain/stderr_watch.h"
#include "cage/integrity/change_store.h"
#include "cage/integrity/held_changes.h"
#include "cage/integrity/never_writable.h"
#include "cage/integrity/protected_paths.h"
#include "cage/integrity/recover.h"
#include "cage/integrity/step_journal.h"
#include "cage/integrity/step_layer.h"
#include "cage/integrity/workspace_guard.h"
#include "cage/settings/cargo_config.h"
#include "cage/settings/environment.h"
#include "cage/settings/git_home_config.h"
#include "cage/settings/step_settings.h"
#include "cage/settings/step_shell.h"
#include "cage/settings/step_tmpdir.h"
#include "cage/step/new_project.h"
#include "cage/step/workspace.h"
#include "common/decision_log.h"
#include "common/error.h"
#include "common/path_resolver.h"
#include "common/step_id.h"
#include "common/user_home.h"
#include "common/workspace_choice.h"

extern char** environ;

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

struct Fd {
    int fd = -1;
    Fd() = default;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    void reset(int next = -1) {
        if (fd >= 0) ::close(fd);
        fd = next;
    }
};

struct RelayGuard {
    std::optional<RelayHandle> relay;
    ~RelayGuard() { reset(); }
    void reset() {
        if (relay && relay->stop) relay->stop();
        relay.reset();
    }
};

struct Step {
    Policy policy;
    StepPaths paths;
    bool no_workspace =
        false;       // the read-only cage where no workspace may be: workspace is workdir
    StepTmpdir tmp;  // made before the policy's {tmp} is expanded, emptied when the step ends
    ExpandedCage cage;
    int kernel_abi = 0;
    int abi = 0;
    bool seccomp = false;
    NetworkMode network = NetworkMode::landlock;
    RelayGuard relay;
    LandlockPlan landlock;
    Fd ruleset;
    const SeccompProgram* filter = nullptr;
    PidsCgroup cgroup;
    MemoryCgroup memory;
    // The step under an init of its own in PID and mount namespaces (cage/step_init.h); false
    // once the kernel refused them: then PR_SET_PDEATHSIG, the cgroup and the journal.
    bool pid_namespace = true;
    // cargo's configuration files the step reads in place of the home's (cage/cargo_config.h);
    // without the step's own mount namespace, the files it cannot read at all.
    std::vector<FileCover> cargo_covers;
    std::vector<std::string> env;
    std::vector<ProtectedPath> protect;
    std::optional<WorkspaceGuard> guard;
    // The hold class as it was before the step, to hold what the step changes there
    // (cage/integrity/held_changes.h).
    std::optional<HoldPass> hold;
    std::string id;        // the step's id (common/step_id.h): its log line, its held changes
    std::string held_dir;  // the step's directory of held changes (cage/integrity/change_store.h)
    int held_lock = -1;    // locked while we live: a step whose lock is free was cut short
    StepJournal journal;   // the snapshot on disk while the step runs (cage/step_journal.h)
    // The step writes into a layer over the workspace, landed when it ends
    // (cage/integrity/step_layer.h); unset: the snapshot of the hold class and the after-step
    // restore, with `layer_why` saying why.
    std::optional<LayerDirs> layer;
    int layer_lock = -1;  // locked while we live: a layer whose lock is free was cut short
    std::string layer_why;
    std::vector<std::pair<std::string, std::uint64_t>> layer_rules;  // added by the step's init
    // What the step showed of the cage's refusals: its stderr lines and the kernel's records.
    std::vector<std::string> stderr_lines;
    std::vector<std::string> audit_records;
    bool audited = false;
    std::vector<CageRefusal> refusals;
    std::vector<std::string> path_left_out;  // PATH entries the step does not get (not executable)
    ~Step() {
        if (held_lock >= 0) ::close(held_lock);  // a step cut short: the next call settles it
        if (layer_lock >= 0) ::close(layer_lock);
    }
};

const std::string& step_id_of(const RunOptions& opt, Step& step);
int land_step_layer(const RunOptions& opt, Step& step, int step_status);

void say(const std::string& line) {
    std::fprintf(stderr, "toolcage run: %s\n", line.c_str());
}

// An existing directory by its real name, resolved as the hook resolves the paths it judges
// (common/path_resolver); empty, with `why`, when it is none.
std::string real_directory(const std::string& given, std::string& why) {
    std::error_code ec;
    std::string abs = given.starts_with("/") ? given : (fs::current_path(ec) / given).string();
    if (ec) {
        why = ec.message();
        return {};
    }
    Resolution r = PathResolver().trace(abs);
    struct stat st {};
    if (!r.error.empty()) {
        why = r.error;
    } else if (::stat(r.path.c_str(), &st) != 0) {
        why = std::strerror(errno);
    } else if (!S_ISDIR(st.st_mode)) {
        why = "not a directory";
    } else {
        return r.path;
    }
    return {};
}

// The workspace given (--workspace) or chosen from the working directory with the policy's work
// roots; never a home, /, a work root, nor a tree that holds toolcage or an agent's configuration
// (common/workspace_choice.h: the one decision the hook, check and doctor make too). The
// read-only cage writes nothing and needs none: without one, it reads the working directory
// ("" returned).
std::string choose_workspace(const RunOptions& opt, const Policy& policy,
                             const std::string& workdir) {
    const workspace::Guarded guarded =
        workspace::with_roots(workspace::guarded_from_process(), policy.workspace.roots);
    if (!opt.workspace.empty()) {
        std::string why;
        std::string real = real_directory(opt.workspace, why);
        if (real.empty())
            throw Error("--workspace \"" + opt.workspace + "\": not a directory (" + why +
                        "); give an existing directory");
        why = workspace::refusal_sentence(real, guarded);
        if (!why.empty()) throw Error("--workspace \"" + opt.workspace + "\": " + why);
        return real;
    }
    workspace::Choice c = workspace::decide(workdir, guarded);
    if (!c.ok() && !(opt.read_only && c.readable)) throw Error(c.reason);
    return c.dir;
}

// cargo stops at a configuration file it cannot read, and the home's may hold a token: one that
// holds only inert settings is granted as it is; another is covered, in the step's own mount
// namespace, by its filtered copy.
void plan_cargo_configs(Step& step) {
    // The user's ~/.cargo only: $CARGO_HOME comes from the agent's shell, which may point it into
    // the workspace.
    auto files = unreadable_cargo_configs(step.cage, step.paths.workdir,
                                          cargo_homes_of("", step.paths.home));
    for (auto& f : files) {
        if (f.inert) {
            step.cage.read.push_back(f.path);
            continue;
        }
        step.cargo_covers.push_back({f.filtered, f.path});
    }
}

// What the step is granted, by real path, never reaches toolcage's own state (the journal the
// next call obeys): the policy loader refused such names; a symlink on the way is refused here.
void refuse_state_dir_grants(const Step& step) {
    const std::vector<std::string> state = private_state_dirs();
    auto reaches = [](const std::string& p, const std::string& d) {
        return p == d || lies_under(d, p) || lies_under(p, d) || p == "/";
    };
    PathResolver resolver;  // the grants share their prefixes: each directory looked up once
    for (const auto* list : {&step.cage.read, &step.cage.write, &step.cage.execute})
        for (const auto& entry : *list) {
            std::string real = resolver.resolve(entry);
            while (real.size() > 1 && real.back() == '/') real.pop_back();
            for (const auto& d : state)
                if (reaches(real, d))
                    throw Error(
                        "policy \"" + step.policy.name + "\": the cage would reach " + d +
                        " through " + entry + " (" + real +
                        "), toolcage's own state (the step journal and the decision log), "
                        "which no step may be granted; name a directory that does not hold it");
        }
}

// A credential's secret file is the relay's to read, never the step's: refused when any grant,
// by real path, reaches it (the file itself or a directory above it).
void refuse_secret_grants(const Step& step) {
    PathResolver resolver;
    for (std::size_t i = 0; i < step.policy.relay.credentials.size(); ++i) {
        const std::string& file = step.policy.relay.credentials[i].secret_file;
        const std::string real = resolver.resolve(file);
        for (const auto* list : {&step.cage.read, &step.cage.write, &step.cage.execute})
            for (const auto& entry : *list) {
                std::string grant = resolver.resolve(entry);
                while (grant.size() > 1 && grant.back() == '/') grant.pop_back();
                if (grant == "/" || grant == real || lies_under(real, grant))
                    throw Error("policy \"" + step.policy.name + "\": /relay/credentials/" +
                                std::to_string(i) + "/secret_file: " + file +
                                " lies in the step's grant " + entry + " (" + grant +
                                "), so the step could read the secret the relay keeps from it; "
                                "move the file "
                                "out of every cage.read, cage.write and cage.execute directory "
                                "(e.g. to ~/.config/"
                                "toolcage-secrets/, mode 0600)");
            }
    }
}

// The read-only cage where no workspace may be reads its working directory ({workspace}); where
// that directory holds toolcage's own state (the home, /), it may list the directory and read
// every entry in it but the ones that lead there, which no step may be granted.
void read_where_it_works(Step& step) {
    if (!step.no_workspace) return;
    const std::string& wd = step.paths.workdir;
    const std::vector<std::string> state = private_state_dirs();
    auto holds_state = [&](const std::string& p) {
        return std::ranges::any_of(
            state, [&](const std::string& d) { return p == "/" || p == d || lies_under(d, p); });
    };
    if (!holds_state(wd)) return;
    std::erase(step.cage.read, wd);
    step.cage.list.push_back(wd);
    std::error_code ec;
    std::size_t n = 0;
    for (fs::directory_iterator it(wd, ec), end; !ec && it != end; it.increment(ec)) {
        // A bound on the rules the cage gets: a directory of more entries is listed, its
        // entries beyond the bound not readable.
        if (++n > 4096) {
            step.cage.notes.push_back(
                wd + ": only its first 4096 entries are readable in the read-only cage");
            break;
        }
        // A symlink is granted as where it leads: left out (the cage reads none through it).
        const std::string p = it->path().string();
        if (!it->is_symlink(ec) && !holds_state(p)) step.cage.read.push_back(p);
    }
}

// 1. The policy, the step's directories and the placeholders.
void load_policy_and_expand(const RunOptions& opt, Step& step) {
    if (!opt.load_policy) throw Error("run: no policy loader given (internal)");
    step.policy = opt.load_policy(opt.policy);

    std::error_code ec;
    if (opt.workdir.empty()) {
        // getcwd() answers the directory's real path: no symlink to resolve.
        fs::path wd = fs::current_path(ec);
        if (ec) throw Error(syscall_error("getcwd()", ec.value()));
        step.paths.workdir = wd.string();
    } else {
        std::string why;
        std::string real = real_directory(opt.workdir, why);
        if (real.empty())
            throw Error("--workdir \"" + opt.workdir + "\": not a directory (" + why +
                        "); give an existing directory");
        step.paths.workdir = real;
    }
    if (!opt.new_project.empty()) {
        if (opt.read_only || !opt.workspace.empty())
            throw Error(
                "--new-project: a new project's step writes its directory and is its own "
                "workspace; drop "
                "--read-only and --workspace");
        step.paths.workdir = make_new_project(
            opt.new_project, step.paths.workdir,
            workspace::with_roots(workspace::guarded_from_process(), step.policy.workspace.roots));
    }
    step.paths.workspace = choose_workspace(opt, step.policy, step.paths.workdir);
    // The read-only cage outside any workspace: it reads where it works ({workspace} is the
    // working directory), as the classifier, which let only reads through, judged it.
    step.no_workspace = step.paths.workspace.empty();
    if (step.no_workspace) step.paths.workspace = step.paths.workdir;
    // The user's home from the user database: $HOME is the agent's shell's to set.
    step.paths.home = user_home();

    if (opt.read_only) {
        // Nothing can be written, so there is no TMPDIR to make; nor a relay to start.
        step.paths.tmp = "/tmp";
        step.policy.relay.enabled = false;
        if (step.policy.cage.network == "landlock") step.policy.cage.network = "auto";
        step.cage = read_only_cage(step.policy.cage, step.paths, !step.no_workspace);
        read_where_it_works(step);
        refuse_state_dir_grants(step);
        hide_unreadable_git_config(step.cage, step.paths.home);
        plan_cargo_configs(step);
        return;
    }
    step.paths.tmp = step.tmp.make();

    step.cage = expand_cage_policy(step.policy.cage, step.paths);
    refuse_state_dir_grants(step);
    if (step.policy.relay.enabled) refuse_secret_grants(step);
    make_missing_home_dirs(step.cage, step.paths.home);
    // toolcage's own files, the agents' settings, start-up files and ~/.ssh: never writable.
    narrow_write_grants(step.cage, never_writable_paths());
    plan_cargo_configs(step);
}

// 1a. A step of this workspace whose supervisor was killed is finished first: its processes
//     killed, its restore done (cage/recover.h). What cannot be restored stops us.
void finish_unfinished_steps(Step& step) {
    if (step.no_workspace) return;  // no step ever wrote there as its workspace
    std::string left = recover_unfinished(step.paths.workspace, stderr);
    if (!left.empty()) throw Error(left);
    // A landing of held changes cut short is finished first too (cage/integrity/change_store.h).
    if (std::string e = finish_landings(step.paths.workspace, stderr); !e.empty())
        say("warning: a landing of held changes could not be finished: " + e);
    // And the layer of a step whose supervisor was killed is landed (cage/integrity/step_layer.h).
    if (std::string e = finish_layer_steps(step.paths.workspace, stderr); !e.empty())
        say("warning: the changes of a step cut short could not be landed: " + e);
}

// 1b. The step's layer where it can be had: then the step never writes into the workspace, and
//     the walk of the hold class before it is not needed. Whether the kernel mounts it is known
//     only in the step's init: a refusal there starts the step again on the snapshot
//     (drop_layer).
void plan_layer(const RunOptions& opt, Step& step) {
    if (opt.read_only || step.no_workspace) return;
    if (step.policy.cage.layer == "off") {
        step.layer_why = "cage.layer is \"off\" in policy \"" + step.policy.name + "\"";
    } else if (landlock_protection_requested(step.policy.cage)) {
        step.layer_why = "cage.protect is \"landlock\": its rules are on the workspace's own files";
    } else {
        step.layer_why = layer_refusal(step.paths.workspace, changes_root(true));
    }
    if (step.layer_why.empty()) {
        try {
            const char* path = std::getenv("PATH");
            step.layer = begin_layer_step(
                {step_id_of(opt, step), step.paths.workspace, step.policy.name, opt.argv},
                // The after-step check's whole list (core.hooksPath's directory, submodules'
                // git directories): held under the layer, never landed, also when the
                // supervisor is killed and the next call lands the rest.
                step.guard ? step.guard->paths()
                           : protected_paths(step.policy.cage.protected_paths),
                path ? path : "", step.layer_lock);
        } catch (const Error& e) {
            step.layer_why = e.what();
            if (step.layer_lock >= 0) ::close(std::exchange(step.layer_lock, -1));
        }
    }
    if (opt.verbose)
        say(step.layer
                ? "note: the step writes into a layer over the workspace, landed when it ends"
                : "note: no layer for the step (" + step.layer_why + "): snapshot and restore");
}

// 1b. The workspace's protected paths as they are before the step (throws when they cannot be
//     read: then nothing runs).
void snapshot_protected_paths(const RunOptions& opt, Step& step) {
    if (opt.read_only) return;  // nothing can be written
    step.protect = protected_paths(step.policy.cage.protected_paths);
    step.guard.emplace(step.paths.workspace, step.protect);
}

// The step's id: the one its relay tags its lines with, so that the fleet's events of a step
// and of its connections share it; the hook's when it named one (--step-id), so that its
// decision joins the step too; else a fresh one.
const std::string& step_id_of(const RunOptions& opt, Step& step) {
    if (!step.id.empty()) return step.id;
    step.id = step.relay.relay ? step.relay.relay->step_id : opt.step_id;
    if (step.id.empty()) {
        try {
            step.id = new_step_id();
        } catch (const Error&) {  // a label, not worth failing the step for
        }
    }
    return step.id;
}

// 1c. The workspace's hold class as it is before the step: its files' bytes, and every other
//     entry's identity (throws when the workspace cannot be walked: then nothing runs).
void snapshot_hold_class(const RunOptions& opt, Step& step) {
    if (opt.read_only || step.no_workspace || step.layer || step.hold) return;
    const char* path = std::getenv("PATH");
    // The check's own list, with the places git runs code from it found (core.hooksPath): what
    // it puts back is its, not the hold pass's to list as landed.
    step.hold.emplace(step.paths.workspace, step.guard ? step.guard->paths() : step.protect,
                      path ? path : "");
    // On disk before anything of the step runs: if we are killed, the next run or hook holds it.
    step.held_dir =
        begin_held_step({step_id_of(opt, step), step.paths.workspace, step.policy.name, opt.argv},
                        *step.hold, step.held_lock);
}

// The kernel would not mount the step's layer (`why`): nothing of the step ran; it starts
// again on the snapshot of the hold class, taken now.
void drop_layer(const RunOptions& opt, Step& step, const std::string& why) {
    if (!step.layer) return;
    end_layer_step(*step.layer, step.layer_lock);
    std::error_code ec;
    fs::remove_all(step.layer->step_dir, ec);
    step.layer.reset();
    step.layer_why = why;
    if (opt.verbose) say("note: no layer for the step (" + why + "): snapshot and restore");
    snapshot_hold_class(opt, step);
}

// 3b. The snapshot and the step's identity on disk before anything of the step runs: if we are
//     killed, the next run or hook for the workspace restores from it.
void journal_step(const RunOptions& opt, Step& step) {
    if (!step.guard) return;  // the read-only cage: nothing it can write to put back
    StepRecord r;
    r.workspace = step.paths.workspace;
    r.policy = step.policy.name;
    r.argv = opt.argv;
    r.tmpdir = step.paths.tmp;
    r.memory_cgroup = step.memory.dir();
    r.pid_namespace = step.pid_namespace;
    step.journal.begin(*step.guard, r);
}

// 6. Once nothing of the step is left: what it changed in the protected paths is put back and
//    reported, and the exit status becomes kTamperExit.
int check_protected_paths(const RunOptions& opt, Step& step, int step_status) {
    if (step.layer) return land_step_layer(opt, step, step_status);
    if (!step.guard) return step_status;
    std::vector<TamperEvent> events = step.guard->restore({step.paths.tmp});
    return report_tamper(events, step_status, {step.policy.name, step.paths.workspace, opt.argv});
}

// 6b. What the step changed in the hold class is put back and kept aside for a person to land;
//     the rest landed. Both are recorded under the step's id (toolcage changes) and the held
//     changes said on stderr. The step's exit status stands.
void hold_changes(const RunOptions& opt, Step& step) {
    if (step.layer || !step.hold) return;
    StepChanges changes = step.hold->settle(step.held_dir + "/held");
    if (changes.held.empty() && changes.landed.empty()) {
        end_held_step(step.held_dir, step.held_lock);
        std::error_code ec;
        fs::remove_all(step.held_dir, ec);  // a step that changed nothing leaves nothing
        return;
    }
    record_step_changes(step.held_dir, {step.id, step.paths.workspace, step.policy.name, opt.argv},
                        changes, stderr);
    end_held_step(step.held_dir, step.held_lock);
}

// 6. With a layer: the step's changeset lands under a journal, the hold class and the protected
//    paths held (a change to a protected path is reported as tampering: the step exits 3), what
//    it replaced or removed kept aside for `toolcage undo`. Everything recorded under the step's
//    id, the held changes said on stderr.
int land_step_layer(const RunOptions& opt, Step& step, int step_status) {
    LayerLanding how{step.paths.workspace, step.guard ? step.guard->paths() : step.protect, ""};
    if (const char* path = std::getenv("PATH")) how.path_env = path;
    LayerResult r = land_layer(*step.layer, how);
    for (const auto& p : r.problems) say("not landed: " + p);
    // The protected paths were held, not landed: the check finds them as they were, unless
    // something outside the step changed them meanwhile, which it puts back as ever.
    std::vector<TamperEvent> events =
        step.guard ? step.guard->restore({step.paths.tmp}) : std::vector<TamperEvent>{};
    for (auto& t : r.tamper) events.push_back(std::move(t));
    int status =
        report_tamper(events, step_status, {step.policy.name, step.paths.workspace, opt.argv});
    if (r.changes.held.empty() && r.changes.landed.empty() && r.changes.landed_more == 0) {
        end_layer_step(*step.layer, step.layer_lock);
        std::error_code ec;
        fs::remove_all(step.layer->step_dir, ec);  // a step that changed nothing leaves nothing
        return status;
    }
    record_step_changes(step.layer->step_dir,
                        {step.id, step.paths.workspace, step.policy.name, opt.argv}, r.changes,
                        stderr);
    end_layer_step(*step.layer, step.layer_lock);
    return status;
}

// 2. What the kernel offers, against what the policy demands.
void probe_kernel_and_check(const RunOptions& opt, Step& step) {
    std::string why;
    step.kernel_abi = probe_landlock_abi(&why);
    step.abi = std::min(step.kernel_abi, landlock::kKnownAbi);
    if (opt.max_landlock_abi >= 0) step.abi = std::min(step.abi, opt.max_landlock_abi);
    step.seccomp = probe_seccomp();

    const int min_abi = step.policy.cage.min_abi;
    if (step.abi < min_abi) {
        std::string msg = "policy \"" + step.policy.name + "\" needs Landlock ABI " +
                          std::to_string(min_abi) + " (cage.min_abi), the kernel offers " +
                          std::to_string(step.abi) + (why.empty() ? "" : " (" + why + ")");
        if (!opt.best_effort)
            throw Error(msg + "; use a newer kernel, lower cage.min_abi, or pass --best-effort");
        say("warning: " + msg + "; running anyway (--best-effort)");
    }
    if (!step.seccomp) {
        if (!opt.best_effort)
            throw Error(
                "seccomp filters are not available in this kernel "
                "(CONFIG_SECCOMP_FILTER); pass --best-effort to run without them");
        say("warning: seccomp filters not available; running without them (--best-effort)");
    }
}

// The step's network: the host's, where Landlock refuses every TCP connect and bind when there
// is no relay; with a relay (whose port Landlock cannot tie to an address) or below ABI 4, a
// private namespace (loopback only) where one can be made, else Landlock's port rule.
// The kernel is not asked beforehand whether it lets us make the namespace: the step's process
// tries, and when it cannot, cage.network "auto" goes on with Landlock's port rule
// (fall_back_to_landlock).
void say_network(const RunOptions& opt, const Step& step, const std::string& note) {
    if (!note.empty()) say("note: " + note);
    if (!opt.verbose) return;
    const bool relay = step.policy.relay.enabled;
    if (step.network == NetworkMode::netns)
        say("network: netns (a private network namespace: loopback only" +
            (relay ? ", the relay at 127.0.0.1:" + std::to_string(kRelayPortInNamespace) : "") +
            ")");
    else
        say(std::string("network: landlock (the host's network; ") +
            (step.abi < 4 ? "TCP unrestricted: Landlock ABI " + std::to_string(step.abi) +
                                " has no network rights"
             : relay ? "TCP connect to the relay's port only"
                     : "no TCP connect or bind") +
            ")");
}

void choose_network(const RunOptions& opt, Step& step) {
    std::string note;
    step.network = first_network_mode(step.policy.cage.network, step.policy.name,
                                      {step.policy.relay.enabled, step.abi}, note);
    say_network(opt, step, note);
}

// The step's process could not make its namespace (`why`) and ended before anything of the
// step ran: for "auto", the host's network with Landlock's port rule, and everything that
// depends on the network is made again; for "netns", an Error.
void fall_back_to_landlock(const RunOptions& opt, Step& step, const std::string& why) {
    std::string note;
    step.network = network_without_namespace(step.policy.cage.network, step.policy.name,
                                             {step.policy.relay.enabled, step.abi}, why, note);
    step.relay.reset();
    say_network(opt, step, note);
}

// 3. The relay: the cage's only way out. Without one, no TCP connect is allowed at all.
void start_relay(const RunOptions& opt, Step& step) {
    if (!step.policy.relay.enabled) return;
    if (!opt.start_relay)
        throw Error("relay not available: policy \"" + step.policy.name +
                    "\" sets relay.enabled, but this toolcage has no relay; set relay.enabled "
                    "to false to run with the network closed");
    // In a private network the relay's socket is made inside it: the relay starts after fork.
    step.relay.relay = opt.start_relay(
        step.policy.relay, step.network == NetworkMode::netns ? kRelayPortInNamespace : 0);
    if (step.network == NetworkMode::netns && !step.relay.relay->serve)
        throw Error(
            "the relay cannot serve a private network (internal); set cage.network to "
            "\"landlock\"");
}

void add_path_rules(const RunOptions& opt, Step& step) {
    open_landlock_paths(step.landlock);
    if (!opt.read_only && landlock_protection_requested(step.policy.cage))
        for (auto& n : keep_protected_read_only(step.landlock, step.paths.workspace, step.protect))
            step.landlock.notes.push_back(std::move(n));
    LandlockReport report = report_landlock(step.landlock);
    if (report.status != Enforcement::full || opt.verbose) {
        say((report.status == Enforcement::full ? "" : "warning: ") + report.summary());
        for (const auto& n : report.notes) say("note: " + n);
    }
    for (const auto& n : step.cage.notes) say("note: " + n);
    add_landlock_rules(step.ruleset.fd, step.landlock);
    // The ruleset holds what it needs: the paths' descriptors do not go on into the step.
    for (auto& rule : step.landlock.rules) {
        rule.fd = -1;
        rule.opened.reset();
    }
}

// With a layer, the rules for paths at or below the workspace are the step's init's to add, once
// the overlay is mounted: Landlock binds a rule to an inode, and the step sees the overlay's.
void leave_workspace_rules_to_layer(Step& step) {
    step.layer_rules.clear();
    if (!step.layer || !step.pid_namespace) return;
    const std::string& ws = step.paths.workspace;
    auto& wanted = step.landlock.wanted;
    for (auto it = wanted.begin(); it != wanted.end();) {
        if (it->first == ws || lies_under(it->first, ws)) {
            step.layer_rules.emplace_back(it->first, it->second & step.landlock.handled_fs);
            it = wanted.erase(it);
        } else {
            ++it;
        }
    }
}

// The layer dropped after the rules were planned: the supervisor adds them all again.
void restore_layer_rules(Step& step) {
    for (auto& [path, access] : step.layer_rules) step.landlock.wanted.emplace_back(path, access);
    step.layer_rules.clear();
}

// The ruleset is made here, empty; its path rules come from add_path_rules(): here, or under a
// step init of its own while the init sets up its namespaces (the paths' walks overlap its
// start-up; the init starts the step only once every rule is in).
void build_landlock_ruleset(const RunOptions& opt, Step& step) {
    std::optional<std::uint16_t> port;
    if (step.relay.relay && step.network == NetworkMode::landlock) port = step.relay.relay->port;
    step.landlock = plan_landlock_rights(step.cage, step.abi, step.kernel_abi, port);
    if (step.network == NetworkMode::netns) leave_network_to_namespace(step.landlock);
    leave_workspace_rules_to_layer(step);
    step.ruleset.reset(create_landlock_ruleset(step.landlock));
    if (!step.pid_namespace) add_path_rules(opt, step);
}

void build_syscall_filter(Step& step) {
    if (step.seccomp)
        step.filter = &compiled_seccomp_program(step.network == NetworkMode::netns
                                                    ? SeccompVariant::private_network
                                                    : SeccompVariant::host_network);
}

// With relay.inspect the step trusts toolcage's CA: a bundle of the system's CAs and toolcage's
// in the step's TMPDIR, named by every variable the common TLS stacks read (README "TLS
// inspection"); NODE_EXTRA_CA_CERTS adds to Node's own roots, so it names toolcage's CA alone.
void trust_inspection_ca(const Step& step, const RelayHandle& relay, Environment& env) {
    if (relay.ca_pem.empty()) return;
    std::string bundle;
    {
        std::ifstream system("/etc/ssl/certs/ca-certificates.crt");
        std::ostringstream ss;
        ss << system.rdbuf();
        bundle = ss.str();
    }
    if (!bundle.empty() && bundle.back() != '\n') bundle += '\n';
    bundle += relay.ca_pem;
    const std::string bundle_path = step.paths.tmp + "/toolcage-ca-bundle.pem";
    const std::string ca_path = step.paths.tmp + "/toolcage-ca.pem";
    for (const auto& [path, text] :
         {std::pair{bundle_path, bundle}, std::pair{ca_path, relay.ca_pem}}) {
        std::ofstream out(path, std::ios::trunc);
        out << text;
        if (!out.flush())
            throw Error("relay.inspect: cannot write " + path + ", the CA bundle for the step");
    }
    for (const char* k : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO",
                          "CARGO_HTTP_CAINFO", "PIP_CERT", "CURL_CA_BUNDLE", "NPM_CONFIG_CAFILE"})
        env[k] = bundle_path;
    env["NODE_EXTRA_CA_CERTS"] = ca_path;
}

void build_step_environment(const RunOptions& opt, Step& step) {
    EnvironmentSpec spec;
    spec.env_keep = step.policy.cage.env_keep;
    spec.env_set = step.cage.env_set;
    spec.execute = step.cage.execute;
    spec.workdir = step.paths.workdir;
    spec.tmpdir = step.paths.tmp;
    if (step.relay.relay) spec.relay_url = step.relay.relay->url;
    spec.home = step.paths.home;
    Environment outer = parse_environ(environ);
    Environment env = build_environment(outer, spec);
    // git, npm and pip read the user's settings from the step's TMPDIR, without credentials.
    // The read-only cage has no TMPDIR of its own: its git is told there is no configuration
    // it cannot read (cage/git_home_config.h).
    if (!opt.read_only) add_step_settings(step.paths.home, step.paths.tmp, spec.env_set, env);
    if (step.relay.relay) {
        trust_inspection_ca(step, *step.relay.relay, env);
        // The placeholders, never the secrets: the relay puts each secret in its place.
        for (const auto& [name, value] : step.relay.relay->placeholders) env[name] = value;
    }
    step.env = flatten_environment(env);
    step.path_left_out = left_out_of_path(outer.count("PATH") ? outer["PATH"] : "", spec.execute);
}

void limit_processes(const RunOptions& opt, Step& step) {
    std::string note = step.cgroup.create(step.policy.cage.limits.nproc);
    if (!note.empty() && opt.verbose) say("note: " + note);
    note = step.memory.create(step.policy.cage.limits.memory_mb, opt.read_only);
    if (!note.empty() && opt.verbose) say("note: " + note);
}

// Without its own PID namespace a step's processes die with the supervisor through
// PR_SET_PDEATHSIG, and what escaped that (a daemon in a session of its own) is killed by the
// next run or hook for the workspace, from the journal.
void say_no_pid_namespace(const RunOptions& opt, const std::string& why) {
    if (opt.verbose)
        say("note: no PID namespace for the step (" + why +
            "): other processes' /proc entries stay visible, and a step's daemon outlives a killed "
            "supervisor until the next run for this workspace");
}

// 4. Fork. The parent supervises; the child goes through the hardening steps and execs.
//    nullopt: the child could not make its network namespace (it reported why and ran nothing).
std::optional<int> supervise_step(const RunOptions& opt, Step& step) {
    // A relay for a private network starts once the step has sent its socket; we become the
    // subreaper only then, or the detached relay would be reparented to us.
    const bool handover = step.network == NetworkMode::netns && step.relay.relay;
    if (!handover) become_child_subreaper();
    // Our memory and /proc files are not readable by a same-uid process in the cage.
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        throw Error(syscall_error("prctl(PR_SET_DUMPABLE, 0)", errno));

    CageSetup setup;
    if (step.network == NetworkMode::netns) setup.network = plan_private_network(handover);
    Fd channel, step_end;  // a socket pair: the step's process sends the relay's socket on it
    if (handover) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
            throw Error(syscall_error("socketpair(AF_UNIX, SOCK_SEQPACKET)", errno));
        channel.fd = setup.network.supervisor_end = sv[0];
        step_end.fd = setup.network.channel = sv[1];
    }
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) throw Error(syscall_error("pipe2(O_CLOEXEC)", errno));
    // The read-only cage, which has nothing to put back, returns when its step ends, without
    // waiting out the teardown of the step's namespaces (a tenth of a millisecond or two): any
    // process the step left is killed by the kernel as the step's init goes.
    Fd end_read, end_write;
    if (opt.read_only && step.pid_namespace) {
        int endfd[2];
        if (::pipe2(endfd, O_CLOEXEC) != 0) throw Error(syscall_error("pipe2(O_CLOEXEC)", errno));
        end_read.fd = endfd[0];
        end_write.fd = setup.end_fd = endfd[1];
        if (::fcntl(end_read.fd, F_SETFL, O_NONBLOCK) != 0)
            throw Error(syscall_error("fcntl(O_NONBLOCK)", errno));
    }
    setup.workdir = step.paths.workdir;
    setup.limits = plan_limits(step.policy.cage.limits, step.memory.active());
    setup.cgroup = &step.cgroup;
    setup.memory = &step.memory;
    setup.cap_last_cap = read_cap_last_cap();
    setup.landlock_fd = step.ruleset.fd;
    setup.seccomp = step.filter;
    setup.env = std::move(step.env);   // made again if the step starts over
    setup.argv = step_argv(opt.argv);  // the log and the journal keep the argv as given
    setup.supervisor = ::getpid();
    setup.report_fd = pipefd[1];
    // Landlock (ABI 7) audits the program's refusals too, not only ours before exec; the
    // records exist only while kernel auditing is on.
    if (step.abi >= 7) setup.landlock_flags = landlock::kRestrictSelfLogNewExecOn;
    StderrWatch watch;
    setup.stderr_fd = watch.open();
    std::vector<std::string> covered;  // named in the explanation if they stay unread
    for (const auto& c : step.cargo_covers) covered.push_back(c.target);
    watch.watch_paths(std::move(covered));
    setup.stdout_to_stderr_fd = watch.merged();
    LandlockAuditWatch audit;
    std::string audit_why;
    step.audited = step.abi >= 7 && step.ruleset.fd >= 0 && audit.open(audit_why);
    setup.saved_mask = block_supervised_signals();
    // The init starts the step once the supervisor has added every path rule: it waits for a
    // byte on this socket (EOF, when we fail first: it runs nothing).
    Fd go_read, go_write;
    if (step.pid_namespace) {
        std::uint64_t proc_access = 0;
        for (const auto& [path, access] : step.landlock.wanted)
            if (path == "/proc") proc_access = access;
        // A socket pair, not a pipe: an init that failed early is no reader, and send() with
        // MSG_NOSIGNAL says so without a SIGPIPE.
        int gofd[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, gofd) != 0)
            throw Error(syscall_error("socketpair(AF_UNIX, SOCK_SEQPACKET)", errno));
        go_read.fd = gofd[0];
        go_write.fd = gofd[1];
        setup.ns = plan_step_namespace(step.landlock.handled_fs, proc_access,
                                       step.policy.cage.limits.memory_mb);
        setup.ns.covers = step.cargo_covers;
        setup.ns.writable = step.cage.write;
        // Without a relay on the host's network, Landlock refuses TCP, but the host's /proc/net
        // would still show: a namespace of the step's own, made with the others.
        setup.ns.private_network = step.network == NetworkMode::landlock && !step.relay.relay;
        setup.ns.go_fd = go_read.fd;
        if (step.layer) {
            setup.ns.layer_target = step.paths.workspace;
            setup.ns.layer_upper = step.layer->upper;
            setup.ns.layer_work = step.layer->work;
            setup.ns.layer_rules = step.layer_rules;
        }
    }

    // 5. The step's process (cage/launcher.cpp), under an init of its own where the kernel
    //    allows it (cage/step_init.cpp). Without a relay to start in between and without that
    //    init, it shares our memory until it execs, and we wait: nothing is copied.
    pid_t child = -1;
    if (step.pid_namespace) {
        child = start_step_in_namespace(setup);
        if (child < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS ||
                          errno == EACCES)) {
            step.pid_namespace = false;
            setup.ns = StepNamespace{};
            const std::string why =
                syscall_error("clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)", errno);
            say_no_pid_namespace(opt, why);
            // Nothing of the step ran: without a mount namespace, it runs on the snapshot.
            if (step.layer) {
                drop_layer(opt, step, "no mount namespace for the step: " + why);
                restore_layer_rules(step);
            }
            add_path_rules(opt, step);
        } else if (child > 0) {
            go_read.reset();
            auto abandon_init = [&] {
                ::kill(child, SIGKILL);
                ::waitpid(child, nullptr, 0);
                ::close(pipefd[0]);
                ::close(pipefd[1]);
                ::sigprocmask(SIG_SETMASK, &setup.saved_mask, nullptr);
            };
            try {
                add_path_rules(opt, step);
            } catch (...) {
                abandon_init();
                throw;
            }
            // An init already gone (EPIPE) has reported why: the report below says it.
            char go = 1;
            ssize_t n;
            do n = ::send(go_write.fd, &go, 1, MSG_NOSIGNAL);
            while (n < 0 && errno == EINTR);
            if (n != 1 && errno != EPIPE && errno != ECONNRESET) {
                int err = errno;
                abandon_init();
                throw Error(syscall_error("send(the step init's start socket)", err));
            }
            go_write.reset();
        }
    }
    if (!step.pid_namespace) {
        child = start_step_process(setup, handover ? StepStart::fork : StepStart::vfork);
        // Its session is what the next run kills if we die: PR_SET_PDEATHSIG reaches only it.
        if (child > 0) step.journal.record_step(child, false);
    }
    if (child < 0) {
        int err = errno;
        ::close(pipefd[0]);
        ::close(pipefd[1]);
        ::sigprocmask(SIG_SETMASK, &setup.saved_mask, nullptr);
        throw Error(syscall_error(handover ? "fork()" : "clone(CLONE_VM | CLONE_VFORK)", err));
    }

    ::close(pipefd[1]);
    if (handover) {
        ::close(std::exchange(step_end.fd, -1));  // the step's end: EOF here if it ends early
        try {
            // The step's process waits for us after sending the socket (or has failed: its
            // report below says why).
            if (int listener = receive_relay_listener(channel.fd); listener >= 0) {
                Fd owned;
                owned.fd = listener;
                step.relay.relay->serve(listener);
                become_child_subreaper();
                release_step(channel.fd);
            }
        } catch (...) {
            ::kill(child, SIGKILL);
            ::waitpid(child, nullptr, 0);
            ::close(pipefd[0]);
            ::sigprocmask(SIG_SETMASK, &setup.saved_mask, nullptr);
            throw;
        }
    }
    // The step runs nothing of its own before this (a handover waits for its release); what it
    // writes to its stderr is passed on from the wait below.
    watch.start();
    CageFailure failure{};
    ssize_t got;
    do got = ::read(pipefd[0], &failure, sizeof failure);
    while (got < 0 && errno == EINTR);
    ::close(pipefd[0]);
    // The processes whose Landlock domain is the step's: the child, or under a step init of its
    // own, the init's child (read while it runs; a step already gone is explained from stderr).
    std::vector<pid_t> step_pids{child};
    if (step.audited && step.pid_namespace) {
        std::ifstream kids("/proc/" + std::to_string(child) + "/task/" + std::to_string(child) +
                           "/children");
        for (pid_t p; kids >> p;) step_pids.push_back(p);
    }

    end_write.reset();  // only the init writes it
    bool ended_early = false;
    const StepOutput output{[&watch] { return watch.fd(); }, [&watch] { return watch.forward(); }};
    int status = wait_for_step(child, end_read.fd, &ended_early, &output);
    if (!ended_early) kill_leftovers();
    ::sigprocmask(SIG_SETMASK, &setup.saved_mask, nullptr);
    step.stderr_lines = watch.finish();
    if (step.audited) step.audit_records = audit.records_for(step_pids);

    if (got == static_cast<ssize_t>(sizeof failure)) {
        failure.call[sizeof failure.call - 1] = '\0';
        std::string msg = syscall_error(failure.call, failure.err);
        if (failure.kind == 'n') {
            fall_back_to_landlock(opt, step, msg);
            return std::nullopt;
        }
        if (failure.kind == 'p') {
            step.pid_namespace = false;
            step.relay.reset();
            say_no_pid_namespace(opt, msg);
            drop_layer(opt, step, "no mount namespace for the step: " + msg);
            return std::nullopt;
        }
        if (failure.kind == 'l') {
            step.relay.reset();
            drop_layer(opt, step, msg);
            return std::nullopt;
        }
        if (failure.kind == 's') throw Error("cage setup failed: " + msg);
        say(msg);
        return failure.err == ENOENT ? 127 : 126;
    }
    return exit_code_of(status);
}

// 6b. What the cage refused, and how to allow it: the relay's refusals from its log, Landlock's
//     from the kernel's audit records when they can be read, else from the step's stderr.
//     One line each on stderr (the agent reads it); nothing when nothing was refused.
void explain_refusals(const RunOptions& opt, Step& step) {
    auto& out = step.refusals;
    if (step.relay.relay)
        out = relay_refusals(step.relay.relay->log_path, step.relay.relay->log_from,
                             step.relay.relay->step_id);
    for (const auto& rec : step.audit_records)
        for (auto& r : audit_record_refusals(rec, step.paths)) out.push_back(std::move(r));
    for (auto& r : stderr_refusals(step.stderr_lines, step.landlock, step.paths,
                                   step.relay.relay.has_value()))
        // With the kernel's records at hand, the stderr adds only what they do not hold: the
        // relay's refusals, and writes the step's read-only mounts refused before Landlock saw
        // them.
        if (!step.audited || r.access == "connect" || (r.access == "write" && step.pid_namespace))
            out.push_back(std::move(r));
    for (auto& r :
         network_refusals(step.stderr_lines, step.relay.relay.has_value(), step.policy.name))
        out.push_back(std::move(r));
    // Without the step's mount namespace, a cargo config that holds a token stays unread.
    if (!step.pid_namespace) {
        std::vector<std::string> unread;
        for (const auto& c : step.cargo_covers) unread.push_back(c.target);
        for (auto& r : unread_cargo_config_refusals(step.stderr_lines, unread)) {
            std::erase_if(
                out, [&](const CageRefusal& o) { return is_unplaced(o) || o.target == r.target; });
            out.push_back(std::move(r));
        }
    }
    drop_duplicates(out);
    // The read-only cage writes nothing whatever the policy's cage.write says.
    if (opt.read_only)
        for (auto& r : out)
            if (r.access == "write") {
                r.field.clear();
                r.fix =
                    "the read-only cage (--read-only, for a command the hook allowed as reading "
                    "only) "
                    "lets a step write nothing; a command that writes runs in the cage proper: "
                    "toolcage run without --read-only";
            }
    for (const auto& r : out) std::fprintf(stderr, "%s\n", refusal_line(r).c_str());
    // Among the step's own output the lines above are easy to miss: one line that counts them.
    if (!out.empty())
        std::fprintf(stderr,
                     "toolcage run: %zu refusal%s by the cage; see above for each and the policy "
                     "field that allows it\n",
                     out.size(), out.size() == 1 ? "" : "s");
    // A program named by the step that is in a directory its PATH leaves out.
    if (auto note = path_note(opt.argv, step.path_left_out); !note.empty())
        std::fprintf(stderr, "%s\n", note.c_str());
}

// 7. One line in the decision log for the step: what ran, under which policy, with which
//    network, and how it ended. A log that cannot be written warns; it changes nothing.
void log_step(const RunOptions& opt, Step& step, int status) {
    std::string command;
    for (const auto& a : opt.argv) command += (command.empty() ? "" : " ") + a;
    if (command.size() > 4096) command.resize(4096);
    nlohmann::json j = {{"time", now_iso8601()},
                        {"event", "step"},
                        {"tool", "run"},
                        {"profile", step.policy.name},
                        {"workspace", step.no_workspace ? std::string() : step.paths.workspace},
                        {"network", step.network == NetworkMode::netns ? "netns" : "landlock"},
                        {"relay", step.relay.relay.has_value()},
                        {"read_only", opt.read_only},
                        {"landlock_abi", step.abi},
                        {"status", status},
                        {"command", command}};
    // The relay's (its lines carry it), else the one the held changes are kept under.
    const std::string id = step.relay.relay ? step.relay.relay->step_id : step_id_of(opt, step);
    if (!id.empty()) j["step"] = id;
    if (!step.refusals.empty()) {
        j["refusals"] = nlohmann::json::array();
        for (const auto& r : step.refusals) j["refusals"].push_back(refusal_json(r));
    }
    std::string err = append_to_decision_log(
        {j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"});
    if (!err.empty()) say("warning: step not logged: " + err);
}

}  // namespace

int run_caged(const RunOptions& opt) {
    if (opt.argv.empty())
        throw Error("run: no program given; usage: toolcage run -- PROGRAM ARGS...");
    if (!opt.step_id.empty() && !is_step_id(opt.step_id))
        throw Error(
            "run: --step-id must be 16 characters of 0-9 and a-f (the id toolcage hook "
            "writes into its rewrite); leave it out and the step gets a fresh one");
    Step step;
    load_policy_and_expand(opt, step);    // 1. policy, workspace, TMPDIR, placeholders
    finish_unfinished_steps(step);        //    what a killed step of this workspace left
    snapshot_protected_paths(opt, step);  //    the protected paths, to put back what changes
    plan_layer(opt, step);                //    the step writes into a layer, where it can be had
    snapshot_hold_class(opt, step);       //    without a layer: what configures how tools run
    probe_kernel_and_check(opt, step);    // 2. Landlock ABI and seccomp against min_abi
    choose_network(opt, step);            //    a private network namespace, or Landlock's rule
    limit_processes(opt, step);  //    a pids cgroup for root (RLIMIT_NPROC skips uid 0), memory
    journal_step(opt, step);     //    the snapshot on disk, in case we are killed
    std::optional<int> status;
    while (!status) {            // twice when "auto" finds no namespace: then on the host's network
        start_relay(opt, step);  // 3. the relay, or a closed network
        build_landlock_ruleset(opt, step);  //    read/write/execute lists, TCP port, scopes
        build_syscall_filter(step);         //    the seccomp table (compiled at build time)
        build_step_environment(opt,
                               step);  //    keep-list, PATH, TMPDIR, proxy, git/npm/pip settings
        status = supervise_step(opt, step);  // 4. fork, supervise, reap; 5. the child's steps
    }
    status = check_protected_paths(opt, step, *status);  // 6. protected paths put back, reported
    hold_changes(opt, step);                             //    the hold class held, the rest landed
    step.journal.finish();                               //    nothing left to finish
    explain_refusals(opt, step);   //    what the cage refused, and how to allow it
    log_step(opt, step, *status);  // 7. the step in the decision log
    return *status;
}

}  // namespace toolcage::cage
