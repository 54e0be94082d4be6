// The tunnel pump: one epoll thread moves bytes for every open tunnel, both ways, propagating
// half-close with shutdown(SHUT_WR). An idle tunnel costs a small struct and no buffer, so a
// thousand of them fit in a few megabytes. A tunnel's first client bytes are held back until
// they are judged (relay/handshake/first_bytes.h): the target sees none of a refused handshake.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "relay/handshake/first_bytes.h"
#include "relay/relay_log.h"
#include "relay/socket_io.h"

namespace toolcage::relay {

struct TunnelStart {
    Fd client;
    Fd target;
    std::string to_target;  // client bytes read after the CONNECT header
    std::string to_client;  // target bytes read before our 2xx (upstream mode)
    ConnectRecord record;   // logged when the tunnel ends, with byte counts
    Clock::time_point accepted;
    // What the client's first bytes must be; empty: nothing is checked.
    std::optional<HandshakeRule> check;
};

class Pump {
public:
    struct Options {
        std::chrono::milliseconds idle_timeout{std::chrono::minutes(10)};
        // From a tunnel's first client byte until its ClientHello is whole.
        std::chrono::milliseconds handshake_timeout{10000};
        std::function<void()> on_tunnel_closed;  // called once per tunnel, on the pump thread
    };

    explicit Pump(Options opt);
    ~Pump();
    Pump(const Pump&) = delete;
    Pump& operator=(const Pump&) = delete;

    // Starts the pump thread. Throws toolcage::Error if epoll or eventfd cannot be created.
    void start();

    // Hands a connected pair to the pump (any thread). The client has been sent our 2xx.
    void add(TunnelStart&& t);

private:
    struct Tunnel;
    void run();
    void take_new();
    void progress(Tunnel& t);
    bool open_gate(Tunnel& t);
    void refuse(Tunnel& t, const std::string& reason, const std::string& answer);
    void finish(Tunnel& t, const std::string& reason);
    void sweep_idle();

    Options opt_;
    Fd epoll_;
    Fd wake_;
    std::thread thread_;
    std::mutex mu_;
    std::vector<TunnelStart> incoming_;
    std::vector<std::unique_ptr<Tunnel>> tunnels_;  // owned by the pump thread
    std::vector<Tunnel*> again_;                    // ran out of budget; continue next round
    std::unique_ptr<char[]> scratch_;
};

}  // namespace toolcage::relay
