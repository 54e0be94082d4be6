// The read-only cage: what an allowed command runs in. It may read what the policy's cage may
// read and write nothing but /dev/null and the terminal; it executes only from the system's
// directories (never the workspace, the home or a temp directory) and has no network.
#pragma once

#include "cage/step/workspace.h"
#include "common/policy.h"

namespace toolcage::cage {

// The device files a read-only step may open for writing: output thrown away, and the terminal
// it was started from. Pipes and the descriptors it inherits need no right.
inline constexpr const char* kReadOnlyWritable[] = {"/dev/null", "/dev/tty", "/dev/pts"};

// The policy's cage cut down to the read-only one: its read list (the step's own {tmp} left
// out: a read-only step has none), the writable devices above, and its execute list without
// any entry in the workspace, the home or a temp directory. Throws Error as expand_cage_policy.
// `in_workspace` false: the step works where no workspace may be ({workspace} is its working
// directory, `/` or /usr included), which no step writes: only the home and the temp
// directories are left out of the execute list then.
ExpandedCage read_only_cage(const CagePolicy& cage, const StepPaths& paths, bool in_workspace = true);

}  // namespace toolcage::cage
