#include "tools/policy_selection.h"

#include "hook/install/failure_report.h"
#include "hook/install/json_file.h"

namespace toolcage::cli {

std::vector<PolicySelection> policy_selections(const std::string& workdir,
                                               const std::string& name) {
    using install::shell_quote;
    std::vector<PolicySelection> out;
    // Every command names the file or profile it edits: the agent's defaults follow $HOME and
    // $HERMES_HOME, which need not be where the hook was found.
    for (const auto& a : install::installed_agents(workdir)) {
        PolicySelection s{a.agent, a.where, "toolcage install " + a.agent, ""};
        if (a.agent == "claude") s.command += " --settings " + shell_quote(a.where);
        if (a.agent == "hermes") {
            s.command += " --hermes-home " + shell_quote(a.where);
            s.line = "toolcage: " + name + " (in the front matter of " + a.where + "/SOUL.md)";
        }
        if (a.agent == "openclaw") s.command += " --config " + shell_quote(a.where);
        s.command += " --policy " + name;
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace toolcage::cli
