// One OCSF 1.8.0 event per line of toolcage's logs, for a fleet's SIEM: hook decisions and
// caged steps (the decision log), relay connections and the requests the relay reads on
// inspected hosts (the relay's log). Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace toolcage::fleet {

// What every event says of where it comes from.
struct EventSource {
    std::string version;   // toolcage's version, metadata.product.version
    std::string hostname;  // device.hostname
};

// The event for one log line, or nullopt when the line is not one that becomes an event (not
// a JSON object, no time, or one of the relay's own notices). The mapping:
//   deny, ask (and a tamper)  -> detection_finding (2004)
//   allow, cage               -> process_activity (1007), Launch: the step the decision starts
//   a caged step's line       -> process_activity (1007), Terminate: exit status, refusals
//   a relay connection        -> network_activity (4001): Open, or Refuse
//   a request on an inspected host -> http_activity (4002): its method, forwarded or refused
// metadata.uid is derived from the line itself, so the same line always gives the same uid
// (an event sent twice, or also shipped from `toolcage log --format ocsf`, is one event).
std::optional<nlohmann::json> ocsf_event(std::string_view line, const EventSource& source);

// "2026-11-29T21:40:00.123Z" as milliseconds since the epoch; nullopt when it is not that form.
std::optional<long long> epoch_ms(std::string_view iso);

}  // namespace toolcage::fleet
