// One file of /proc/PID (stat, environ, cgroup), read with read(2). A stream would be wrong
// here: the process may die between open and read, read then fails with ESRCH, and libstdc++'s
// filebuf turns that into an exception in the middle of recovery.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace toolcage {

// The whole of /proc/PID/NAME, at most `max` bytes; empty when the process is gone or the
// file cannot be read. environ wants a larger `max` than the default: a process's
// environment may take megabytes (a step that pads it must not hide what follows).
std::string read_proc_file(pid_t pid, const char* name, std::size_t max = 64 * 1024);

}  // namespace toolcage
