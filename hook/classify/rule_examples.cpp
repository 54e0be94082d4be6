// A policy's own rules carry examples: commands each rule must fire on ("match") and must not
// ("not_match"). They are judged here, with the whole policy, where the policy is loaded: a rule
// that does not do what its author showed is refused, the example and its field named, before
// it could let through what it was written to stop.
#include <string>
#include <vector>

#include "hook/classify/classifier.h"

namespace toolcage::classify {

namespace {

// Examples are judged as if run in a project at ~/project.
Context example_context() {
    Context c;
    c.cwd = "/home/user/project";
    c.workspace = "/home/user/project";
    c.home = "/home/user";
    c.real_home = "/home/user";
    c.tmp = "/tmp";
    return c;
}

bool fires(const Explanation& e, const std::string& id) {
    for (const RuleHit& h : e.hits) {
        if (h.rule == id) return true;
    }
    return false;
}

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch == '\n' ? ' ' : ch;
    }
    return out + "\"";
}

}  // namespace

std::vector<std::string> rule_example_errors(const Policy& p) {
    std::vector<std::string> errors;
    const Context ctx = example_context();
    for (size_t i = 0; i < p.rules.size(); ++i) {
        const ExtraRule& r = p.rules[i];
        const std::string at = p.file + ": /rules/" + std::to_string(i);
        for (size_t j = 0; j < r.match.size(); ++j) {
            Explanation e = explain_command(r.match[j], ctx, p);
            if (fires(e, r.id)) continue;
            errors.push_back(at + "/match/" + std::to_string(j) + ": " + quoted(r.match[j]) + ": rule \"" + r.id +
                             "\" does not fire on this example (it is judged " +
                             std::string(to_string(e.verdict.decision)) + " by " + e.verdict.rule +
                             "); fix the rule's program, words or args, or the example");
        }
        for (size_t j = 0; j < r.not_match.size(); ++j) {
            Explanation e = explain_command(r.not_match[j], ctx, p);
            if (!fires(e, r.id)) continue;
            errors.push_back(at + "/not_match/" + std::to_string(j) + ": " + quoted(r.not_match[j]) +
                             ": rule \"" + r.id +
                             "\" fires on this example, which it must not; narrow the rule's words or args, or "
                             "move the example to match");
        }
    }
    return errors;
}

}  // namespace toolcage::classify
