#include "tools/log_programs.h"

#include <algorithm>

#include "common/policy.h"
#include "hook/classify/classifier.h"

namespace toolcage::cli {

namespace {

// Where the command is read: no workspace and no home, so that nothing of this machine (the
// directory `log` runs in) changes what a logged command is read as. Only the programs are kept.
const classify::Context& reading_context() {
    static const classify::Context ctx{"/", "", "/nonexistent-home", "/nonexistent-home", "/tmp"};
    return ctx;
}

}  // namespace

std::vector<std::string> log_programs(std::string_view command) {
    static const Policy builtin{};  // the built-in rules: the programs do not depend on a policy
    classify::Explanation e =
        classify::explain_command(std::string(command), reading_context(), builtin);
    std::vector<std::string> out;
    for (const std::string& shown : e.programs) {
        // The classifier shows a part known only at run time as "…".
        if (shown.empty() || shown.find("…") != std::string::npos ||
            shown.find(' ') != std::string::npos) {
            out.push_back("(run-time name)");
            continue;
        }
        std::string_view name = shown;
        while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
        if (auto slash = name.rfind('/');
            slash != std::string_view::npos && slash + 1 < name.size())
            name = name.substr(slash + 1);
        out.emplace_back(name);
    }
    if (out.empty() && std::any_of(e.hits.begin(), e.hits.end(), [](const classify::RuleHit& h) {
            return h.rule.starts_with("parse.");
        }))
        out.push_back("(not parsed)");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace toolcage::cli
