// What a step is granted, in a person's words (`toolcage doctor`, `toolcage run --verbose`), and
// the directory a step would run in, resolved as `toolcage run` resolves it.
#pragma once

#include <string>

#include "common/policy.h"

namespace toolcage::cli {

// "." or "sub" is the directory it names from here; "" is the current directory. A directory that
// is not there is an Error naming `command` and the directory (never the policy).
std::string resolve_workdir(const std::string& given, const std::string& command);

// The workspace, the writes (none in the read-only cage), TMPDIR, reads, network and limits of a
// step run in `wd` under `p`; its workspace is `workspace` (run's --workspace, resolved) when
// given, else the one chosen from `wd`. `list_reads`: the paths it reads are listed here (run
// --verbose); else only counted, for a report that lists them below (doctor's "paths").
std::string grant_summary(const Policy& p, const std::string& wd, bool read_only,
                          const std::string& workspace = "", bool list_reads = false);

}  // namespace toolcage::cli
