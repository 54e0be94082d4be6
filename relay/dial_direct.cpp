#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <resolv.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "relay/address_check.h"
#include "relay/dial.h"

namespace toolcage::relay {

std::vector<sockaddr_storage> resolve_absolute(const std::string& host, uint16_t port,
                                               std::string& error) {
    // The per-thread resolver state: drop the search list and default domain, so a name that
    // fails is never retried with a suffix. (glibc's hosts file does not match names written
    // with a trailing dot, so the dot itself cannot be used.)
    // A failed res_init() (e.g. out of descriptors) leaves the state half set up, and glibc's
    // resolver then crashes on it: refuse instead of looking up.
    std::vector<sockaddr_storage> out;
    if (::res_init() != 0) {
        error = std::string("cannot load the resolver configuration: ") + std::strerror(errno);
        return out;
    }
    _res.options &= ~static_cast<unsigned long>(RES_DNSRCH | RES_DEFNAMES);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* res = nullptr;
    std::string service = std::to_string(port);
    int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
    if (rc != 0) {
        error = rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc);
        return out;
    }
    for (addrinfo* a = res; a; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        sockaddr_storage ss{};
        std::memcpy(&ss, a->ai_addr, a->ai_addrlen);
        bool dup = false;
        for (const auto& o : out)
            if (std::memcmp(&o, &ss, sizeof ss) == 0) dup = true;
        if (!dup) out.push_back(ss);
    }
    ::freeaddrinfo(res);
    if (out.empty()) error = "no IPv4 or IPv6 address";
    return out;
}

static socklen_t addr_len(const sockaddr_storage& a) {
    return a.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
}

DialOutcome connect_address(const sockaddr_storage& addr, Clock::time_point deadline) {
    DialOutcome out;
    out.address = sockaddr_to_string(&addr, addr_len(addr));
    Fd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) {
        out.status = 502;
        out.reason = "socket() for " + out.address + " failed: " + std::strerror(errno);
        return out;
    }
    int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), addr_len(addr));
    if (rc != 0 && errno != EINPROGRESS) {
        out.status = 502;
        out.reason = "connecting to " + out.address + " failed: " + std::strerror(errno);
        return out;
    }
    if (rc != 0) {
        for (;;) {
            pollfd p{fd.get(), POLLOUT, 0};
            int n = ::poll(&p, 1, ms_until(deadline));
            if (n < 0 && errno == EINTR) continue;
            if (n == 0) {
                out.status = 504;
                out.reason = "connecting to " + out.address + " timed out";
                return out;
            }
            break;
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            out.status = 502;
            out.reason = "connecting to " + out.address + " failed: " + std::strerror(err);
            return out;
        }
    }
    int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    out.fd = std::move(fd);
    return out;
}

DialOutcome dial_direct(const Target& t, const DirectOptions& opt, Clock::time_point deadline) {
    DialOutcome out;
    std::string error;
    auto answers = resolve_absolute(t.host, t.port, error);
    if (answers.empty()) {
        out.status = 502;
        out.reason = "cannot resolve " + t.host + ": " + error;
        return out;
    }
    // Every answer must pass: a name that resolves to a public and a private address at once
    // is treated as hostile (DNS rebinding), not trimmed to the public one.
    std::vector<in6_addr> own = own_addresses_cached();
    for (const auto& a : answers) {
        if (auto why = address_refusal(reinterpret_cast<const sockaddr*>(&a), opt.allow_private,
                                       opt.allow_ranges,
                                       own, opt.relay_port)) {
            out.status = 403;
            out.reason = *why;
            out.address = sockaddr_to_string(&a, addr_len(a));
            return out;
        }
    }
    for (const auto& a : answers) {
        DialOutcome attempt = connect_address(a, deadline);
        if (attempt.status == 0 || Clock::now() >= deadline) return attempt;
        out = std::move(attempt);
    }
    return out;
}

}  // namespace toolcage::relay
