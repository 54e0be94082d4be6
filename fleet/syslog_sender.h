// Sending syslog messages to a collector without ever holding up the caller: a short connect
// timeout, non-blocking writes, and a count of what went out whole.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/policy_schema.h"

namespace toolcage::fleet {

struct SendResult {
    std::size_t sent = 0;  // messages from the first on that were handed to the collector whole
    std::string error;     // why the rest were not: the failing call and its errno text
};

// tcp: one connection, each message octet-counted (RFC 6587); udp and unix: one datagram per
// message. Gives up on what is left when `budget` (connect included) runs out. UDP cannot tell
// a message that was lost from one that arrived: there, "sent" means handed to the kernel.
SendResult send_syslog(const SyslogTarget& target, const std::vector<std::string>& messages,
                       std::chrono::milliseconds budget);

}  // namespace toolcage::fleet
