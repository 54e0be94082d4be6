#include "hook/adapters/rewrite.h"

#include "hook/adapters/shell_state.h"

namespace toolcage::hook {

std::string shell_quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    for (char c : s) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    out += '\'';
    return out;
}

std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& workdir, const std::string& command) {
    // Every argument that came from outside is quoted, the policy too (it may be a path).
    return shell_quote(toolcage_bin) + " run --policy " + shell_quote(policy) + " --workdir " +
           shell_quote(workdir) + " -- /bin/bash -c " + shell_quote(command);
}

std::string cage_rewrite(const CageRewrite& r) {
    std::string tail = (r.workspace.empty() ? "" : " --workspace " + shell_quote(r.workspace)) +
                       (r.read_only ? " --read-only" : "") + " -- /bin/bash -c ";
    if (auto split = split_shell_state(r.command))
        return split->outside + " && " + shell_quote(r.toolcage_bin) + " run --policy " +
               shell_quote(r.policy) + tail + shell_quote(split->inside);
    return shell_quote(r.toolcage_bin) + " run --policy " + shell_quote(r.policy) + " --workdir " +
           shell_quote(r.workdir) + tail + shell_quote(r.command);
}

}  // namespace toolcage::hook
