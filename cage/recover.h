// Finishing what a killed supervisor left: before the hook decides and before a step starts,
// every step of the workspace whose supervisor is gone has its processes killed and its
// workspace restored from the journal (cage/step_journal.h), and the restore is reported.
#pragma once

#include <cstdio>
#include <string>

namespace toolcage::cage {

// Finishes every unfinished step of `workspace` (absolute; empty: of every workspace). Steps
// whose supervisor still runs are left alone. Each restore is logged as tamper events in the
// decision log, and printed on `report` when given. Returns "" when nothing is left undone,
// else a message naming what could not be restored and the journal kept (the caller refuses
// to go on: the next call tries again). Never throws.
std::string recover_unfinished(const std::string& workspace, std::FILE* report = nullptr);

}  // namespace toolcage::cage
