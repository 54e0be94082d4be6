// The step's layer: where the kernel allows it, a caged step writes into an overlay's upper
// directory in toolcage's state (<step dir>/layer/upper, which no step reaches), never into the
// workspace; when it ends, the supervisor reads that directory as a changeset (added, changed,
// removed, mode changes, symlinks as links) and lands it: ordinary changes at once, the hold
// class (cage/integrity/hold_rule.h) kept for a person to land (cage/integrity/change_store.h).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cage/integrity/change_store.h"
#include "cage/integrity/held_changes.h"
#include "cage/integrity/layer_ops.h"
#include "cage/integrity/protected_paths.h"
#include "cage/integrity/workspace_guard.h"

namespace toolcage::cage {

struct LayerDirs {
    std::string step_dir;  // the step's directory of the change store
    std::string upper, work;
};

// Why a step of `workspace` cannot have a layer whose upper directory is in toolcage's state
// (the state directory's file system refuses to be an overlay's upper, or a path holds a
// character the overlay's options cannot carry), or "". Cheap: no mount is tried.
// `root`: the directory the upper directories go in (change_store.h's changes_root).
std::string layer_refusal(const std::string& workspace, const std::string& root);

// Before the step: its directory, layer/upper (with the workspace's permission bits: the step
// sees them as its workspace root's) and layer/work, and what the step is (info.json, with the
// protected paths and PATH, for a step whose supervisor is killed), and its `running` lock held
// while `lock_fd` is open. Throws Error naming the directory: then the step runs without a layer.
LayerDirs begin_layer_step(const StepInfo& info, const std::vector<ProtectedPath>& protect,
                           const std::string& path_env, int& lock_fd);

// How the changeset is landed.
struct LayerLanding {
    std::string workspace;  // absolute
    // Held, never landed (and reported as tampering): the policy's protected paths and what the
    // after-step check learned (workspace_guard.h's paths()).
    std::vector<ProtectedPath> protect;
    std::string path_env;  // where the shadow rule looks for programs (hold_rule.h)
};

struct LayerResult {
    StepChanges changes;
    // What was not landed and why (special files, a path that could not be written).
    std::vector<std::string> problems;
    // Changes to the protected paths, and removals and replacements of a directory that holds
    // them (a .git): held, and reported as tampering (the step's exit status becomes kTamperExit).
    std::vector<TamperEvent> tamper;
};

// The step's directory's journal of a landing under way, and the list of what landed.
inline constexpr std::string_view kLandingJournal = "layer-landing.json";
inline constexpr std::string_view kLandedFile = "landed.json";

// After every process of the step is gone (its mount namespace with them): reads the upper
// directory as data only (every name by directory fds, never through a symlink; sizes and depth
// bounded; device files other than whiteouts refused), plans the landing (layer_ops.h), writes
// the plan to the step's directory (kLandingJournal) and applies it: what the step replaced or
// removed is moved aside into <step dir>/before, the hold class into <step dir>/held, and what
// landed listed with each entry's identity (kLandedFile) for `toolcage undo`. With a journal
// already there (a landing cut short), its plan is finished instead. Never throws: what cannot
// be landed is said in `problems`.
LayerResult land_layer(const LayerDirs& dirs, const LayerLanding& how);

// The layer's directories go (whatever the step left there is landed or held by now), the
// landing's journal, its info, and the lock. Call after the step's record is written.
void end_layer_step(const LayerDirs& dirs, int& lock_fd);

// Lands the layer of every step of `workspace` whose supervisor was killed (its lock is free):
// ordinary changes land, the hold class and the protected paths are held, all reported on
// `report`. "" or what could not be finished.
std::string finish_layer_steps(const std::string& workspace, std::FILE* report);

}  // namespace toolcage::cage
