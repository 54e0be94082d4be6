// The step's program as it is started: a bash given a command with -c reads no start-up file.
// bash reads /etc/bash.bashrc and ~/.bashrc before a -c command when it is the top-level shell
// and its stdin is a socket (it takes that for a command sent by sshd or rshd), and OpenClaw's
// exec gives its commands such a stdin (Node.js's stdio pipes are socket pairs). No start-up
// file belongs to a step, and in the cage the user's ~/.bashrc is refused besides: every step
// would print bash's "Permission denied" and toolcage's explanation of the refusal.
#pragma once

#include <string>
#include <vector>

namespace toolcage::cage {

// `argv` with --norc after the program when the program is bash (by its file name) and its
// first argument is -c, as toolcage's own rewrite writes it (`/bin/bash -c COMMAND`); else
// `argv` as it is.
std::vector<std::string> step_argv(const std::vector<std::string>& argv);

}  // namespace toolcage::cage
