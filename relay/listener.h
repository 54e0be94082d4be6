// The listening socket and the accept loop: one short-lived thread per connection for the
// handshake, a cap on connections (503 beyond it), and a back-off when accept() runs out of
// file descriptors instead of spinning.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "relay/session.h"
#include "relay/socket_io.h"

namespace toolcage::relay {

// Binds and listens on "127.0.0.1:0", "[::1]:8080", ... Returns the socket; `port` gets the
// bound port. Throws toolcage::Error naming --listen and the fix.
Fd listen_on(const std::string& spec, uint16_t& port);

// Takes over an inherited listening TCP socket (--listen-fd): checks that it is one, makes it
// non-blocking and close-on-exec. `port` gets its port. Throws toolcage::Error naming --listen-fd.
Fd adopt_listener(int fd, uint16_t& port);

struct AcceptLoopOptions {
    int max_tunnels = 256;
    int watch_fd = -1;  // when readable or hung up, the loop returns
};

// Counts connections being handled (handshakes and tunnels); the pump and sessions decrement.
std::atomic<int>& connections_in_use();

// Accepts until the watched fd signals. Returns normally only then.
void accept_loop(int listen_fd, const AcceptLoopOptions& opt, const SessionContext& ctx);

}  // namespace toolcage::relay
