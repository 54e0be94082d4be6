#include "hook/adapters/rewrite.h"

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

}  // namespace toolcage::hook
