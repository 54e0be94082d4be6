// Finishing what a killed supervisor left: before the hook decides and before a step starts,
// every step of the workspace at hand whose supervisor is gone has its processes killed and its
// workspace restored from the journal (cage/integrity/step_journal.h), and the restore is reported.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace toolcage::cage {

// Finishes every unfinished step of `workspace` (absolute): only that workspace's journal
// directory is looked at, so the cost does not grow with other workspaces' journals. Steps whose
// supervisor still runs are left alone. A journal is obeyed only when its directory chain, owner,
// mode and contents check out (the workspace it names is `workspace`, every path it restores lies
// inside it, the processes it names are proven the step's); one that does not is left alone,
// untouched. Each restore is logged as tamper events in the decision log, and printed on `report`
// when given. Returns "" when nothing is left undone, else a message naming each journal left
// (its path, what did not check out, and what the user should do): the caller refuses to go on.
// A finished workspace's empty journal directory is removed. Never throws.
std::string recover_unfinished(const std::string& workspace, std::FILE* report = nullptr);

// The housekeeping pass (`toolcage doctor`): removes the journal directories of workspaces that
// no longer exist, with the journals in them (nothing there can be restored), and empty ones.
// Journals whose supervisor still runs, and directories that do not check out, are left. Returns
// one line per thing done or left, for the report.
std::vector<std::string> journal_housekeeping();

}  // namespace toolcage::cage
