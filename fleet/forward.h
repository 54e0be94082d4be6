// The fleet's side of the logs: each line written to the decision log or the relay's log goes,
// as an OCSF event, to the host's collector (fleet/setting.h), or waits in <log>.unsent.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "fleet/ocsf_event.h"

namespace toolcage::fleet {

// How long one call may spend on the collector, connect included: the hook runs before every
// tool call, and a collector that is down or slow must not hold it up.
constexpr std::chrono::milliseconds kSendBudget{250};

// Sends the events of `lines` (just appended to the log at `log_path`), then those earlier
// calls could not send. What does not go out whole is kept in unsent_path(log_path). Does
// nothing when the host names no collector. Never throws.
void forward_to_collector(const std::vector<std::string>& lines, const std::string& log_path);

// What `toolcage log` says of events that did not reach the collector; "" when none wait and
// the setting is valid.
std::string unsent_note(const std::string& log_path);

// This toolcage's version and host name, as the events name them.
const EventSource& this_source();

}  // namespace toolcage::fleet
