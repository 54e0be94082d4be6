// Threads for handshakes: a connection's handshake runs on its own thread (small stack), so a
// slow client or a slow DNS answer never holds up another. Finished threads wait a while for
// the next connection instead of exiting, which saves a thread start per CONNECT.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace toolcage::relay {

class Workers {
public:
    // Runs `job` on an idle worker, or on a new thread. False if no thread could be started.
    bool submit(std::function<void()> job);

private:
    void serve(std::function<void()> first);

    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> queue_;
    int idle_ = 0;
};

// Starts a detached thread with the relay's small stack.
bool spawn_detached(std::function<void()> fn);

}  // namespace toolcage::relay
