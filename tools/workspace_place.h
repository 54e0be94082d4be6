// Where `check`, `explain` and `doctor` say a command would run: the classifier's context of a
// directory and the workspace decided for it with the policy's work roots, as the hook and `run`
// decide it (common/workspace_choice.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/policy.h"
#include "common/verdict.h"
#include "common/workspace_choice.h"
#include "hook/classify/classifier.h"

namespace toolcage::cli {

struct WorkspacePlace {
    classify::Context context;  // the classifier's, with the policy's work roots
    workspace::Choice choice;
    workspace::Guarded guarded;  // with the policy's roots, for a command that moves first
};

// `cwd` absolute (or empty: here).
WorkspacePlace workspace_place(const std::string& cwd, const Policy& policy);

// The verdict the hook answers for the classifier's `v` of `command` at `place`, placed as the
// hook places it (hook/decision/run_placement.h): a caged command where no workspace may be is
// asked about (hook.no-workspace), with the decision's reason.
Verdict placed_verdict(const Verdict& v, const std::string& command, const WorkspacePlace& place,
                       const Policy& policy);

// {"ok", "dir", "reason", "root"} for --json.
nlohmann::json workspace_json(const workspace::Choice& c);

}  // namespace toolcage::cli
