// The socket pair (SOCK_SEQPACKET) between the supervisor and the step's process before exec:
// each message is one tag byte and at most one file descriptor (SCM_RIGHTS).
#pragma once

namespace toolcage::cage {

// Sends `tag` and, when `fd` >= 0, a copy of `fd`. Returns 0 or an errno (EPIPE: the other end
// is gone).
int send_message(int channel, char tag, int fd = -1);

// Receives one message: its tag, and the descriptor it carries (close-on-exec), else -1.
// Returns 0, ECONNABORTED when the other end closed first, or an errno.
int receive_message(int channel, char& tag, int& fd);

}  // namespace toolcage::cage
