// The lint's findings written for a person (one block per finding) or for CI (--json).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lint/findings.h"

namespace toolcage::lint {

// "<file>: <field>: <message>\n  fix: <fix>\n" per finding, then a summary line.
std::string text_report(const Findings& findings, const std::string& subject);

// {"clean": bool, "findings": [{"rule","severity","file","field","message","fix"}]}
nlohmann::json json_report(const Findings& findings);

}  // namespace toolcage::lint
