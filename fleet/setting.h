// The host's fleet setting: which collector receives toolcage's events. Read from
// /etc/toolcage/fleet.json, else <prefix>/share/toolcage/fleet.json beside the install; never
// from the environment, which the agent's shell sets.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/policy_schema.h"

namespace toolcage::fleet {

struct FleetSetting {
    std::string file;                    // the file read; empty when there is none
    std::string url;                     // log.syslog as written
    std::optional<SyslogTarget> syslog;  // nullopt: no collector (or the file is invalid)
    std::string error;                   // the file's first error, when it is invalid
};

// The files looked at, in order; the first that exists is the setting.
std::vector<std::string> fleet_setting_paths();

// Reads the setting (once per process; later calls answer the same).
const FleetSetting& fleet_setting();

// Reads one setting file; for the tests and `fleet_setting()`.
FleetSetting read_fleet_setting(const std::string& file);

}  // namespace toolcage::fleet
