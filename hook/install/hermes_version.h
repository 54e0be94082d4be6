// Which Hermes Agent is installed, and what toolcage can enforce through it: each route
// (plugin middleware rewrite, plugin pre_tool_call, shell hook) arrived in a given version.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hook/install/program_probe.h"

namespace toolcage::install {

using HermesVersion = ProgramVersion;

// "0.20.3" (an optional leading v, anything after the third number ignored); nullopt otherwise.
std::optional<HermesVersion> parse_hermes_version(std::string_view s);

struct DetectedHermes {
    std::optional<HermesVersion> version;
    std::string source;  // how it was found, or why it was not
};

// `given` (--hermes-version) when not empty; else the `hermes` on PATH: the interpreter its #!
// line names is asked for hermes_cli.__version__ (importing hermes_cli runs nothing else; `hermes
// --version` would look for updates on the network).
DetectedHermes detect_hermes(const std::string& given);

// What this Hermes enforces through each route, as lines for the user. Claims nothing for a
// version it does not know.
std::string enforcement_report(const DetectedHermes& d);

}  // namespace toolcage::install
