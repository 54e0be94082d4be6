#include "relay/workers.h"

#include <pthread.h>

#include <chrono>
#include <memory>

namespace toolcage::relay {
namespace {

// Handshake threads touch little stack; getaddrinfo() needs the most. Untouched stack pages
// cost no memory.
constexpr size_t kThreadStack = 256 * 1024;
// Idle workers kept, and for how long, before they exit.
constexpr int kMaxIdle = 32;
constexpr auto kIdleWait = std::chrono::seconds(10);

void* thread_entry(void* arg) {
    std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(arg));
    (*fn)();
    return nullptr;
}

}  // namespace

bool spawn_detached(std::function<void()> fn) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kThreadStack);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    auto* heap = new std::function<void()>(std::move(fn));
    pthread_t tid;
    int rc = pthread_create(&tid, &attr, thread_entry, heap);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        delete heap;
        return false;
    }
    return true;
}

bool Workers::submit(std::function<void()> job) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        // Only queue when a waiting worker is sure to take it.
        if (static_cast<size_t>(idle_) > queue_.size()) {
            queue_.push_back(std::move(job));
            cv_.notify_one();
            return true;
        }
    }
    return spawn_detached([this, job = std::move(job)]() mutable { serve(std::move(job)); });
}

void Workers::serve(std::function<void()> job) {
    for (;;) {
        job();
        job = nullptr;
        std::unique_lock<std::mutex> lock(mu_);
        if (idle_ >= kMaxIdle) return;
        ++idle_;
        bool got = cv_.wait_for(lock, kIdleWait, [this] { return !queue_.empty(); });
        --idle_;
        if (!got) return;
        job = std::move(queue_.front());
        queue_.pop_front();
    }
}

}  // namespace toolcage::relay
