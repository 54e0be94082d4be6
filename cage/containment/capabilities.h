// Dropping every capability before the step runs, so that uid 0 inside the cage is as
// powerless as anyone: bounding set, ambient set, securebits, then capset to empty.
#pragma once

#include <string>

namespace toolcage::cage {

// The highest capability number the kernel knows (/proc/sys/kernel/cap_last_cap), read before
// fork; the header's CAP_LAST_CAP when /proc does not say.
int read_cap_last_cap();

// True when the process holds any capability (permitted or effective) or runs as uid 0.
bool holds_privilege();

// In the step's process. Returns 0 or an errno; `what` receives the failing call as written.
int drop_all_capabilities(int cap_last_cap, std::string& what);

}  // namespace toolcage::cage
