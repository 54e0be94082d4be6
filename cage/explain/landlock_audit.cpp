#include "cage/explain/landlock_audit.h"

#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace toolcage::cage {

namespace {

// Audit's read-only multicast group (include/uapi/linux/netlink.h: AUDIT_NLGRP_READLOG).
constexpr unsigned kReadLogGroup = 1;

std::string field(std::string_view text, std::string_view key) {
    std::string needle = std::string(key) + "=";
    std::size_t at = 0;
    while ((at = text.find(needle, at)) != std::string_view::npos) {
        if (at == 0 || text[at - 1] == ' ') {
            std::size_t v = at + needle.size();
            std::size_t end = text.find(' ', v);
            return std::string(
                text.substr(v, end == std::string_view::npos ? std::string_view::npos : end - v));
        }
        at += needle.size();
    }
    return {};
}

// The text after "audit(<time>:<serial>): ".
std::string_view body(std::string_view text) {
    if (text.starts_with("audit(")) {
        auto close = text.find("): ");
        if (close != std::string_view::npos) return text.substr(close + 3);
    }
    return text;
}

// AUDIT_GET: is auditing on? -1 when the kernel would not say (no CAP_AUDIT_CONTROL).
int audit_enabled() {
    int s = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
    if (s < 0) return -1;
    struct {
        nlmsghdr h;
        audit_status st;
    } m{};
    m.h.nlmsg_len = sizeof m;
    m.h.nlmsg_type = AUDIT_GET;
    m.h.nlmsg_flags = NLM_F_REQUEST;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    int result = -1;
    if (::sendto(s, &m, sizeof m, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) >= 0) {
        alignas(nlmsghdr) char buf[8192];
        for (int i = 0; i < 4; ++i) {
            pollfd p{s, POLLIN, 0};
            if (::poll(&p, 1, 200) <= 0) break;
            ssize_t n = ::recv(s, buf, sizeof buf, 0);
            if (n < static_cast<ssize_t>(sizeof(nlmsghdr))) break;
            auto* h = reinterpret_cast<nlmsghdr*>(buf);
            if (h->nlmsg_type == NLMSG_ERROR) {
                auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
                if (e->error != 0) break;
                continue;
            }
            if (h->nlmsg_type == AUDIT_GET) {
                audit_status st{};
                std::memcpy(&st, NLMSG_DATA(h),
                            std::min<std::size_t>(sizeof st, h->nlmsg_len - NLMSG_HDRLEN));
                result = st.enabled ? 1 : 0;
                break;
            }
        }
    }
    ::close(s);
    return result;
}

}  // namespace

AuditAvailability landlock_audit_availability() {
    int on = audit_enabled();
    if (on < 0)
        return {false,
                "the kernel's audit records need root (CAP_AUDIT_READ and CAP_AUDIT_CONTROL)"};
    if (on == 0)
        return {false, "kernel auditing is off; turn it on with auditd or `auditctl -e 1`"};
    return {true, ""};
}

LandlockAuditWatch::~LandlockAuditWatch() {
    if (fd_ >= 0) ::close(fd_);
}

bool LandlockAuditWatch::open(std::string& why) {
    AuditAvailability a = landlock_audit_availability();
    if (!a.readable) {
        why = a.why;
        return false;
    }
    int s = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
    if (s < 0) {
        why = std::string("socket(AF_NETLINK, NETLINK_AUDIT): ") + std::strerror(errno);
        return false;
    }
    sockaddr_nl addr{};
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = 1U << (kReadLogGroup - 1);
    if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        why = std::string("bind(NETLINK_AUDIT, AUDIT_NLGRP_READLOG): ") + std::strerror(errno) +
              " (needs CAP_AUDIT_READ)";
        ::close(s);
        return false;
    }
    fd_ = s;
    return true;
}

std::vector<std::string> LandlockAuditWatch::records_for(const std::vector<pid_t>& pids) {
    std::vector<std::pair<int, std::string>> messages;
    if (fd_ < 0) return {};
    alignas(nlmsghdr) char buf[16384];
    // The kernel's audit thread sends the records a moment after the denial: wait until it has
    // been quiet for a short while.
    for (;;) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) break;
        ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            break;
        }
        const std::size_t size = static_cast<std::size_t>(n);
        for (std::size_t off = 0; off + sizeof(nlmsghdr) <= size;) {
            const auto* h = reinterpret_cast<const nlmsghdr*>(buf + off);
            if (h->nlmsg_len < NLMSG_HDRLEN || off + h->nlmsg_len > size) break;
            if (h->nlmsg_type == kAuditLandlockAccess || h->nlmsg_type == kAuditLandlockDomain) {
                const char* text = buf + off + NLMSG_HDRLEN;
                std::size_t len = h->nlmsg_len - NLMSG_HDRLEN;
                messages.emplace_back(h->nlmsg_type, std::string(text, strnlen(text, len)));
            }
            off += NLMSG_ALIGN(h->nlmsg_len);
        }
    }
    return select_step_records(messages, pids);
}

std::vector<std::string> select_step_records(
    const std::vector<std::pair<int, std::string>>& messages, const std::vector<pid_t>& pids) {
    std::vector<std::string> domains;
    std::vector<std::string> want;
    for (pid_t p : pids) want.push_back(std::to_string(p));
    for (const auto& [type, text] : messages) {
        std::string_view b = body(text);
        if (type == kAuditLandlockDomain && field(b, "status") == "allocated" &&
            std::find(want.begin(), want.end(), field(b, "pid")) != want.end())
            domains.push_back(field(b, "domain"));
    }
    std::vector<std::string> out;
    for (const auto& [type, text] : messages) {
        std::string_view b = body(text);
        if (type == kAuditLandlockAccess &&
            std::find(domains.begin(), domains.end(), field(b, "domain")) != domains.end())
            out.emplace_back(b);
    }
    return out;
}

}  // namespace toolcage::cage
