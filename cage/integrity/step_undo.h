// `toolcage undo STEP`: puts the workspace back as it was before a step that ran in a layer
// (step_layer.h). Its landing moved what it replaced or removed into <step dir>/before and listed
// what landed with each entry's identity (landed.json); undo checks that every landed path still
// is what the step left, and refuses, naming each path that a later change touched and the fix;
// otherwise it removes what the step added and puts back what it replaced or removed, under a
// journal (undo.json) that the next toolcage call finishes when it is killed half-way, drops the
// step's held changes (they never landed), and marks the step undone in its record.
#pragma once

#include <cstdio>
#include <string>

namespace toolcage::cage {

// Undoes `step` (its id). Returns the number of conflicting paths (0: undone, or undone
// already); prints what it did, or each conflict and its fix, on `report`. Throws Error when the
// step is not found, ran without a layer (its before-state was not kept), or this process must
// not undo (inside a caged step: change_store.h's landing_refusal).
std::size_t undo_step(const std::string& step, std::FILE* report);

// Finishes the undo of the step in `step_dir` that was cut short (its undo.json is there), once
// the step's lock is held. "" or what could not be finished.
std::string finish_undo(const std::string& step_dir, std::FILE* report);

}  // namespace toolcage::cage
