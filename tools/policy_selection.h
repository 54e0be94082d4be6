// How to point each agent toolcage is installed into at another policy, for `toolcage explain`'s
// "to change": the exact `toolcage install … --policy NAME` command, and for Hermes the SOUL.md
// line that chooses it as well.
#pragma once

#include <string>
#include <vector>

namespace toolcage::cli {

struct PolicySelection {
    std::string agent;    // "claude", "hermes", "openclaw"
    std::string where;    // the settings file, the Hermes profile, openclaw.json
    std::string command;  // `toolcage install AGENT … --policy NAME`, with the file it edits
    std::string line;     // Hermes: the SOUL.md front matter line that chooses it too; else ""
};

// The agents whose configuration runs toolcage's hook (hook/install/failure_report.h), each
// with how to select policy `name` for it. Nothing is changed and nothing is run.
std::vector<PolicySelection> policy_selections(const std::string& workdir, const std::string& name);

}  // namespace toolcage::cli
