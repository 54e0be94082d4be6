// Where a step's changes are kept and how a person lands them: one private directory per step in
// toolcage's state (<state>/changes/<hash of the workspace>/<step id>/), which no caged step can
// reach (cage/run.cpp refuses every grant of the state directory): record.json (what was held and
// what landed), held/ (the step's version of each held path), landing.json (the journal of a
// landing under way) and lock.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cage/integrity/held_changes.h"

namespace toolcage::cage {

// <state>/changes: made (0700) when `make`; "" when there is no state directory.
std::string changes_root(bool make);

// Makes the directory of a step of `workspace` (private) and returns it. Throws Error naming the
// directory and the fix when it cannot be made or does not check out.
std::string make_step_dir(const std::string& workspace, const std::string& step);

// What `toolcage run` knows of the step, for its record.
struct StepInfo {
    std::string step, workspace, policy;
    std::vector<std::string> argv;
};

// Before a step: makes its directory, writes the hold pass's snapshot (before.cbor) and what the
// step is (info.json) there, and locks the directory's `running` file for as long as the returned
// fd is open (the supervisor's life). Throws Error naming the directory: then the step must not
// run.
std::string begin_held_step(const StepInfo& info, const HoldPass& pass, int& lock_fd);
// After the hold pass: the snapshot goes, the lock is let go.
void end_held_step(const std::string& step_dir, int& lock_fd);

// Settles every step of `workspace` whose supervisor was killed before its hold pass (its
// snapshot is still there, its lock free): what it changed in the hold class is held, recorded
// and reported on `report`, as after any step. Run once the step's processes are gone
// (recover.h). "" or what could not be settled.
std::string finish_held_steps(const std::string& workspace, std::FILE* report);

// Writes the step's record (atomically), prints each held change on `report` with how a person
// lands it, and logs each in the decision log (and so to the fleet's collector). Never throws;
// a record that cannot be written is said on `report`.
void record_step_changes(const std::string& step_dir, const StepInfo& info,
                         const StepChanges& changes, std::FILE* report);

// The records of the steps of `workspace` (every workspace's when empty), oldest first.
std::vector<nlohmann::json> step_records(const std::string& workspace);

// Lands the held changes of `step` (all of them, or those at or below `paths`): each path
// atomically (the step's version renamed over it), under a journal that the next landing,
// `toolcage changes` or `toolcage run` finishes when this process is killed half-way. A path
// that changed since the step (it no longer holds what the hold pass put back) is refused.
// Prints what it did on `report`. Returns the number of paths not landed (refused or failed);
// throws Error when the step is not found or its directory does not check out.
std::size_t land_step(const std::string& step, const std::vector<std::string>& paths,
                      std::FILE* report);

// Finishes every landing of `workspace`'s steps whose process is gone (the journal's lock is
// free). "" or what could not be finished.
std::string finish_landings(const std::string& workspace, std::FILE* report);

// The housekeeping pass (`toolcage doctor`): the step directories of workspaces that no longer
// exist are removed (nothing there can be landed). One line per workspace, for the report.
std::vector<std::string> changes_housekeeping();

// Why this process must not land (or undo) anything (it runs inside a caged step, or cannot
// reach the state directory), or "". `what`: what only a person does, for the message.
std::string landing_refusal(const std::string& what = "held changes are landed");

// A file of a step's directory, written whole under a new name and renamed into place. "" or
// what failed.
std::string write_state_file(const std::string& dir, const std::string& name,
                             const std::string& text);
// A JSON file of a step's directory. Throws Error naming it and the fix.
nlohmann::json read_state_json(const std::string& path);
// The directory of `step` (its id), in whichever workspace's directory it is. Throws Error
// naming the fix when there is none or it does not check out.
std::string step_dir_of(const std::string& step);

}  // namespace toolcage::cage
