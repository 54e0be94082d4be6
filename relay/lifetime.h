// How long the relay lives: it announces its port on --ready-fd, can detach from its launcher
// (double fork + setsid), and ends, closing every tunnel, when the watched step ends.
#pragma once

#include <cstdint>
#include <string>

namespace toolcage::relay {

enum class WatchKind { pidfd, pipe };

// Checks that `fd` is a pidfd or the read end of a pipe (fstat, /proc/self/fd). Throws
// toolcage::Error naming --watch-fd and the fix.
WatchKind check_watch_fd(int fd);

// Writes "PORT\n" to `fd` and closes it. Throws toolcage::Error naming --ready-fd.
void announce_ready(int fd, uint16_t port);

// Double fork and setsid(): the surviving grandchild's parent becomes PID 1 or the nearest
// subreaper. The launcher's process exits 0 once the middle child is gone. stdin goes to
// /dev/null; stdout and stderr to `log_path` (appended) or /dev/null.
void detach(const std::string& log_path);

}  // namespace toolcage::relay
