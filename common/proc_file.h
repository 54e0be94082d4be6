// One file of /proc/PID (stat, environ, cgroup), read with read(2). A stream would be wrong
// here: the process may die between open and read, read then fails with ESRCH, and libstdc++'s
// filebuf turns that into an exception in the middle of recovery.
#pragma once

#include <sys/types.h>

#include <string>

namespace toolcage {

// The whole of /proc/PID/NAME, at most 64 KiB; empty when the process is gone or the file
// cannot be read.
std::string read_proc_file(pid_t pid, const char* name);

}  // namespace toolcage
