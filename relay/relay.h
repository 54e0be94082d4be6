// toolcage-relay as a library call: the options of the command line and the one function that
// runs the relay until the watched step ends.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace toolcage::relay {

struct RelayOptions {
    std::string listen = "127.0.0.1:0";
    int listen_fd = -1;  // an inherited listening socket, used instead of `listen`
    std::vector<std::string> allow;
    std::string upstream;    // http://[user:pass@]host:port, or empty for direct mode
    std::string token_file;  // empty: no authentication (warned)
    bool allow_private = false;
    std::vector<std::string> allow_ranges;  // CIDR ranges dialled although not public
    int watch_fd = -1;
    int ready_fd = -1;
    bool detach = false;
    std::string log_file;  // empty: stderr
    std::string step;      // tags every log line, so the launcher can pick its step's lines
    int max_tunnels = 256;
    bool require_sni = true;   // --allow-missing-sni turns it off (relay.require_sni: false)
    std::string inspect_file;  // --inspect-file: relay.inspect and its credentials and rules
    std::chrono::milliseconds header_timeout{10'000};
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds idle_timeout{600'000};
    std::chrono::milliseconds handshake_timeout{10'000};
};

// Runs the relay; returns only on a startup error (throws toolcage::Error). When the watched
// step ends, the process exits 0 after closing every tunnel.
[[noreturn]] void run_relay(const RelayOptions& opt);

// --make-ca DIR: makes toolcage's inspection CA in DIR unless it is there. Throws toolcage::Error.
void make_ca(const std::string& dir);

}  // namespace toolcage::relay
