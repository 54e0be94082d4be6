// RFC 5424 syslog messages carrying one OCSF event each, and RFC 6587 octet-counting framing
// for sending them over TCP.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace toolcage::fleet {

// "<PRI>1 TIMESTAMP HOSTNAME toolcage PROCID MSGID - EVENT": facility security/authorization
// (10), the severity from the event's severity_id, the timestamp the event's own time (a
// message sent late still says when it happened), MSGID the OCSF class (detection_finding,
// process_activity, network_activity), the event's JSON as the message.
std::string syslog_message(const nlohmann::json& event, const std::string& hostname, long pid);

// "LEN SP MESSAGE" (RFC 6587 3.4.1): the receiver needs no delimiter in the message.
std::string octet_counted(const std::string& message);

}  // namespace toolcage::fleet
