// Where the running binary is (/proc/self/exe), read once a process: the hook, the policy
// search and the workspace choice all ask, and a process's own binary never changes.
#pragma once

#include <string>

namespace toolcage {

// The directory of the running binary (absolute), or empty when /proc/self/exe cannot be read.
const std::string& self_exe_dir();

}  // namespace toolcage
