#include "hook/call/file_target.h"

#include "common/path_text.h"
#include "hook/call/paths.h"

namespace toolcage::hook {

namespace {

// Node's path.resolve folds `..` as text before a file is opened; whether a tool calls it first
// is the tool's own business, so both readings are judged.
bool may_fold_first(Agent agent) {
    return agent == Agent::claude || agent == Agent::openclaw;
}

}  // namespace

FileTarget file_target(const std::string& path, const std::string& cwd, const std::string& home,
                       Agent agent) {
    FileTarget t;
    const std::string joined = joined_path(path, cwd, home);
    t.lexical = normal_path(joined);
    std::vector<std::string> forms{joined};
    if (may_fold_first(agent) && t.lexical != joined) forms.push_back(t.lexical);
    PathResolver resolver;  // the forms share their prefixes
    for (const auto& form : forms) {
        Resolution r = resolver.trace(form);
        if (!r.error.empty()) {
            t.error = path + " cannot be resolved as " + std::string(to_string(agent)) +
                      " resolves it: " + r.error;
            t.reached.clear();
            return t;
        }
        t.reached.push_back(std::move(r));
    }
    return t;
}

}  // namespace toolcage::hook
