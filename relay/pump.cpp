#include "relay/pump.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace toolcage::relay {
namespace {

constexpr size_t kChunk = 128 * 1024;
// Bytes one tunnel may move before the others get a turn.
constexpr size_t kBudget = 4 * 1024 * 1024;

}  // namespace

// Bytes from fd[src] to fd[1 - src]. `buf` holds what the destination did not take yet; it is
// allocated only when a write comes up short, so idle tunnels hold no buffer at all.
struct Flow {
    std::unique_ptr<char[]> buf;
    size_t off = 0;
    size_t len = 0;
    bool src_eof = false;
    bool dst_shut = false;
    uint64_t total = 0;
};

// A tunnel's first client bytes, held until they are judged.
struct Gate {
    HandshakeRule rule;
    std::string held;
    Clock::time_point first_byte{};  // when `held` got its first byte
};

struct Pump::Tunnel {
    struct Side {
        Tunnel* t;
        int index;
    };
    Fd fd[2];  // 0 = client, 1 = target
    Side side[2];
    Flow flow[2];  // 0 = client -> target, 1 = target -> client
    bool can_read[2] = {true, true};
    bool can_write[2] = {true, true};
    bool dead = false;
    bool queued = false;
    Clock::time_point last_active;
    ConnectRecord record;
    Clock::time_point accepted;
    std::unique_ptr<Gate> gate;  // until the first client bytes are judged
};

Pump::Pump(Options opt) : opt_(std::move(opt)), scratch_(new char[kChunk]) {}

Pump::~Pump() {
    // The relay ends by exiting the process; the pump thread is never joined.
    if (thread_.joinable()) thread_.detach();
}

void Pump::start() {
    epoll_ = Fd(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll_) throw Error(syscall_error("epoll_create1(EPOLL_CLOEXEC)", errno));
    wake_ = Fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!wake_) throw Error(syscall_error("eventfd(0, EFD_NONBLOCK)", errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev) != 0)
        throw Error(syscall_error("epoll_ctl(EPOLL_CTL_ADD, eventfd)", errno));
    thread_ = std::thread([this] { run(); });
}

void Pump::add(TunnelStart&& t) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        incoming_.push_back(std::move(t));
    }
    uint64_t one = 1;
    ssize_t n = ::write(wake_.get(), &one, sizeof one);
    (void)n;  // a full eventfd counter still wakes the pump
}

void Pump::take_new() {
    uint64_t count;
    while (::read(wake_.get(), &count, sizeof count) > 0) {
    }
    std::vector<TunnelStart> batch;
    {
        std::lock_guard<std::mutex> lock(mu_);
        batch.swap(incoming_);
    }
    for (auto& s : batch) {
        auto t = std::make_unique<Tunnel>();
        t->fd[0] = std::move(s.client);
        t->fd[1] = std::move(s.target);
        t->record = std::move(s.record);
        t->accepted = s.accepted;
        t->last_active = Clock::now();
        if (s.check) {
            // Bytes the client sent with its CONNECT are the start of what is judged.
            t->gate = std::make_unique<Gate>();
            t->gate->rule = std::move(*s.check);
            t->gate->held = std::move(s.to_target);
            s.to_target.clear();
            if (!t->gate->held.empty()) t->gate->first_byte = t->last_active;
        }
        const std::string* early[2] = {&s.to_target, &s.to_client};
        for (int i = 0; i < 2; ++i) {
            t->side[i] = {t.get(), i};
            if (!early[i]->empty()) {
                t->flow[i].buf.reset(new char[std::max(kChunk, early[i]->size())]);
                std::memcpy(t->flow[i].buf.get(), early[i]->data(), early[i]->size());
                t->flow[i].len = early[i]->size();
            }
        }
        bool ok = true;
        for (int i = 0; i < 2 && ok; ++i) {
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
            ev.data.ptr = &t->side[i];
            ok = ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, t->fd[i].get(), &ev) == 0;
        }
        Tunnel& ref = *t;
        tunnels_.push_back(std::move(t));
        if (!ok) {
            finish(ref, syscall_error("epoll_ctl(EPOLL_CTL_ADD, tunnel)", errno));
            continue;
        }
        progress(ref);
    }
}

// Moves what can move without blocking, in both directions, within a budget.
void Pump::progress(Tunnel& t) {
    if (t.dead) return;
    if (t.gate && !open_gate(t)) return;
    size_t moved = 0;
    bool active = true;
    while (active && !t.dead) {
        active = false;
        for (int i = 0; i < 2 && !t.dead; ++i) {
            if (i == 0 && t.gate) continue;  // the client's bytes wait for their judgement
            Flow& f = t.flow[i];
            int src = i;
            int dst = 1 - i;
            // 1. Flush what the destination did not take before.
            while (f.len > 0 && t.can_write[dst]) {
                ssize_t n = ::send(t.fd[dst].get(), f.buf.get() + f.off, f.len, MSG_NOSIGNAL);
                if (n > 0) {
                    f.off += static_cast<size_t>(n);
                    f.len -= static_cast<size_t>(n);
                    f.total += static_cast<uint64_t>(n);
                    moved += static_cast<size_t>(n);
                    active = true;
                    if (f.len == 0) f.off = 0;
                } else if (n < 0 && errno == EINTR) {
                    continue;
                } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    t.can_write[dst] = false;
                } else {
                    finish(t, std::string("send to ") + (dst == 0 ? "client" : "target") +
                                  " failed: " + std::strerror(errno));
                    return;
                }
            }
            // 2. Read more only when nothing is waiting, so each direction holds at most
            // one chunk.
            while (f.len == 0 && !f.src_eof && t.can_read[src] && moved < kBudget) {
                ssize_t n = ::recv(t.fd[src].get(), scratch_.get(), kChunk, 0);
                if (n == 0) {
                    f.src_eof = true;
                    active = true;
                    break;
                }
                if (n < 0) {
                    if (errno == EINTR) continue;
                    if (errno == EAGAIN || errno == EWOULDBLOCK) {
                        t.can_read[src] = false;
                        break;
                    }
                    finish(t, std::string("recv from ") + (src == 0 ? "client" : "target") +
                                  " failed: " + std::strerror(errno));
                    return;
                }
                size_t got = static_cast<size_t>(n);
                size_t sent = 0;
                while (sent < got && t.can_write[dst]) {
                    ssize_t w = ::send(t.fd[dst].get(), scratch_.get() + sent, got - sent,
                                       MSG_NOSIGNAL);
                    if (w > 0) {
                        sent += static_cast<size_t>(w);
                    } else if (w < 0 && errno == EINTR) {
                        continue;
                    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                        t.can_write[dst] = false;
                    } else {
                        finish(t, std::string("send to ") + (dst == 0 ? "client" : "target") +
                                      " failed: " + std::strerror(errno));
                        return;
                    }
                }
                f.total += sent;
                moved += got;
                active = true;
                if (sent < got) {
                    if (!f.buf) f.buf.reset(new char[kChunk]);
                    std::memcpy(f.buf.get(), scratch_.get() + sent, got - sent);
                    f.off = 0;
                    f.len = got - sent;
                }
            }
            // 3. Half-close: the source finished and everything reached the destination.
            if (f.src_eof && f.len == 0 && !f.dst_shut) {
                ::shutdown(t.fd[dst].get(), SHUT_WR);
                f.dst_shut = true;
                active = true;
            }
        }
        if (moved >= kBudget) break;
    }
    if (t.dead) return;
    if (moved > 0) t.last_active = Clock::now();
    if (t.flow[0].dst_shut && t.flow[1].dst_shut) {
        finish(t, "closed");
        return;
    }
    // Out of budget with work left: come back after the others had their turn (edge-triggered
    // epoll will not report this readiness again).
    if (moved >= kBudget && !t.queued) {
        t.queued = true;
        again_.push_back(&t);
    }
}

// Reads the client's first bytes into the gate until they can be judged; on a pass they become
// the first bytes to the target, unchanged. False when the tunnel was refused and is finished.
bool Pump::open_gate(Tunnel& t) {
    Gate& g = *t.gate;
    for (;;) {
        FirstBytesVerdict v = judge_first_bytes(g.held, g.rule);
        if (!v.server_name.empty()) t.record.server_name = v.server_name;
        if (v.action == FirstBytesVerdict::Action::refuse) {
            refuse(t, v.reason, v.answer);
            return false;
        }
        if (v.action == FirstBytesVerdict::Action::pass) {
            Flow& f = t.flow[0];
            if (!g.held.empty()) {
                f.buf.reset(new char[std::max(kChunk, g.held.size())]);
                std::memcpy(f.buf.get(), g.held.data(), g.held.size());
                f.off = 0;
                f.len = g.held.size();
            }
            t.gate.reset();
            return true;
        }
        // Wait: read more, never past the bound (the verdict refuses at the bound).
        if (!t.can_read[0]) return true;
        size_t room = kMaxFirstBytes - std::min(kMaxFirstBytes, g.held.size());
        if (room == 0) {  // the verdict refuses at the bound; never spin on a full gate
            refuse(t, "the first bytes to " + g.rule.host + " were not judged within the bound", "");
            return false;
        }
        ssize_t n = ::recv(t.fd[0].get(), scratch_.get(), std::min(room, kChunk), 0);
        if (n > 0) {
            if (g.held.empty()) g.first_byte = Clock::now();
            g.held.append(scratch_.get(), static_cast<size_t>(n));
            t.last_active = Clock::now();
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            t.can_read[0] = false;
            return true;
        }
        if (n < 0) {
            finish(t, std::string("recv from client failed: ") + std::strerror(errno));
            return false;
        }
        // The client stopped sending. Nothing at all: its half-close travels on as any other.
        if (g.held.empty()) {
            t.flow[0].src_eof = true;
            t.gate.reset();
            return true;
        }
        refuse(t, "the client stopped sending in the middle of its ClientHello for " +
                      g.rule.host + ":" + std::to_string(g.rule.port),
               "");
        return false;
    }
}

// A tunnel whose first bytes were refused: the client hears the TLS alert, if any, and the
// close; the target heard nothing of it.
void Pump::refuse(Tunnel& t, const std::string& reason, const std::string& answer) {
    if (!answer.empty())
        (void)!::send(t.fd[0].get(), answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(t.fd[0].get(), SHUT_WR);
    t.record.verdict = "deny";
    finish(t, reason);
}

void Pump::finish(Tunnel& t, const std::string& reason) {
    if (t.dead) return;
    t.dead = true;
    for (auto& fd : t.fd) fd.reset();  // close() also removes them from the epoll set
    for (auto& f : t.flow) f.buf.reset();
    t.record.bytes_up = t.flow[0].total;
    t.record.bytes_down = t.flow[1].total;
    t.record.ms = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t.accepted).count());
    t.record.reason = reason;
    log_connect(t.record);
    if (opt_.on_tunnel_closed) opt_.on_tunnel_closed();
}

void Pump::sweep_idle() {
    auto now = Clock::now();
    for (auto& t : tunnels_) {
        if (t->dead) continue;
        if (t->gate && !t->gate->held.empty() &&
            now - t->gate->first_byte > opt_.handshake_timeout)
            refuse(*t,
                   "the ClientHello for " + t->gate->rule.host + ":" +
                       std::to_string(t->gate->rule.port) + " was not complete within " +
                       std::to_string(opt_.handshake_timeout.count()) + " ms",
                   "");
        else if (now - t->last_active > opt_.idle_timeout)
            finish(*t, "idle timeout");
    }
}

void Pump::run() {
    constexpr int kEvents = 256;
    epoll_event events[kEvents];
    auto last_sweep = Clock::now();
    for (;;) {
        int timeout = again_.empty() ? 1000 : 0;
        int n = ::epoll_wait(epoll_.get(), events, kEvents, timeout);
        if (n < 0 && errno != EINTR) {
            log_event("error", "pump", syscall_error("epoll_wait()", errno));
            ::usleep(100 * 1000);
            continue;
        }
        for (int i = 0; i < n; ++i) {
            if (events[i].data.ptr == nullptr) {
                take_new();
                continue;
            }
            auto* side = static_cast<Tunnel::Side*>(events[i].data.ptr);
            Tunnel& t = *side->t;
            if (t.dead) continue;
            uint32_t e = events[i].events;
            if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) t.can_read[side->index] = true;
            if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) t.can_write[side->index] = true;
            progress(t);
        }
        std::vector<Tunnel*> again;
        again.swap(again_);
        for (Tunnel* t : again) {
            t->queued = false;
            progress(*t);
        }
        auto now = Clock::now();
        if (now - last_sweep >= std::chrono::seconds(1)) {
            sweep_idle();
            last_sweep = now;
        }
        // Free finished tunnels only here, after no event of this round can point at them.
        again_.erase(std::remove_if(again_.begin(), again_.end(), [](Tunnel* t) { return t->dead; }),
                     again_.end());
        tunnels_.erase(std::remove_if(tunnels_.begin(), tunnels_.end(),
                                      [](const auto& t) { return t->dead; }),
                       tunnels_.end());
    }
}

}  // namespace toolcage::relay
