// Upstream mode: the relay does not dial targets itself but asks an outer HTTP proxy with its
// own CONNECT, and accepts only a 2xx answer, read within a deadline and capped in size.
#pragma once

#include <cstdint>
#include <string>

#include "relay/dial.h"
#include "relay/target.h"

namespace toolcage::relay {

struct UpstreamProxy {
    std::string host;           // canonical name or IP literal (IPv6 without brackets)
    uint16_t port = 0;
    std::string authorization;  // "Basic ..." from the URL's userinfo, or empty

    // Parses http://[user:pass@]host:port (userinfo percent-decoded). Throws toolcage::Error
    // naming --upstream and the fix.
    static UpstreamProxy parse(const std::string& url);

    // Whether a CONNECT to `t` would reach this proxy itself.
    bool is_self(const Target& t) const;
};

DialOutcome dial_upstream(const UpstreamProxy& up, const Target& t, Clock::time_point deadline);

}  // namespace toolcage::relay
