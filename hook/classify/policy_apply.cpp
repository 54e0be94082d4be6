// How a policy adjusts the built-in answers: an override replaces the decision of a rule where
// it fires, the policy's own rules add verdicts for programs they name, and at the end a cage
// verdict becomes what the policy says caged commands become (strict policies: deny).
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

void Analyzer::hit(Decision d, std::string_view rule, std::string reason) {
    const Decision builtin = d;
    if (!policy_.overrides.empty()) {
        auto it = policy_.overrides.find(std::string(rule));
        if (it != policy_.overrides.end() && it->second != d) {
            d = it->second;
            reason += " (policy override: ";
            reason += to_string(d);
            reason += ')';
        }
    }
    if (dry && dry_level == exec_level) {
        std::optional<Decision> cap = dry_run_cap(*dry, rule);
        if (cap && static_cast<int>(d) > static_cast<int>(*cap)) {
            reason = std::string(dry->reason) + " (without it: " + reason + ")";
            d = *cap;
            rule = "dryrun.rehearsal";
        }
    }
    if (probing > 0) {
        if (static_cast<int>(d) > static_cast<int>(probe_max)) probe_max = d;
        return;
    }
    if (trace) trace->hits.push_back({d, builtin, std::string(rule), reason});
    if (!any_ || static_cast<int>(d) > static_cast<int>(best_.decision)) {
        best_builtin_ = builtin;
        best_.decision = d;
        best_.rule.assign(rule);
        best_.reason = std::move(reason);
        any_ = true;
    }
}

namespace {

// A rule's word against one argument: the same text, or `--option=…` for the word `--option`.
bool word_is(const std::string& word, const Value& arg) {
    if (!arg.known()) return false;
    const std::string& t = arg.text;
    if (t == word) return true;
    return word.size() > 1 && word[0] == '-' && t.size() > word.size() && t.compare(0, word.size(), word) == 0 &&
           t[word.size()] == '=';
}

// The words among the arguments, in the rule's order (others may come between them).
bool has_words(const ExtraRule& r, const Call& call) {
    size_t at = 0;
    for (const std::string& w : r.words) {
        while (at < call.args.size() && !word_is(w, call.args[at])) ++at;
        if (at == call.args.size()) return false;
        ++at;
    }
    return true;
}

}  // namespace

void Analyzer::apply_extra_rules(const Call& call) {
    for (const ExtraRule& r : policy_.rules) {
        if (r.program.empty() || !glob_match(r.program, call.name)) continue;
        if (!has_words(r, call)) continue;
        bool all = std::all_of(r.args.begin(), r.args.end(), [&](const std::string& g) {
            return std::any_of(call.args.begin(), call.args.end(),
                               [&](const Value& a) { return glob_match(g, a.text); });
        });
        if (!all) continue;
        if (!r.paths.empty()) {
            bool found = false;
            for (const Value& a : call.args) {
                if (is_flag(a)) continue;
                for (const PathInfo& p : resolve(a, *call.scope)) {
                    if (std::find(r.paths.begin(), r.paths.end(), p.cls) != r.paths.end()) found = true;
                }
            }
            if (!found) continue;
        }
        hit(r.decision, r.id, r.reason.empty() ? "policy rule `" + r.id + "` matches `" + call.name + "`" : r.reason);
    }
}

Verdict Analyzer::finish() const {
    Verdict v = best_;
    if (!any_) {
        v.decision = Decision::allow;
        v.rule = "shell.builtin";
        v.reason = "nothing runs";
    }
    // A built-in question (an unknown program's word for destruction, a dump on stdin) asks
    // about what would otherwise be caged: where caged commands are denied, so is it.
    if (v.decision == Decision::ask && best_builtin_ == Decision::ask && policy_.on_cage == Decision::deny) {
        v.decision = Decision::deny;
        v.reason += " (policy: commands that would be caged are deny)";
    }
    if (v.decision == Decision::cage && policy_.on_cage != Decision::cage) {
        v.decision = policy_.on_cage;
        v.reason += " (policy: commands that would be caged are ";
        v.reason += to_string(policy_.on_cage);
        v.reason += ')';
    }
    return v;
}

}  // namespace toolcage::classify::detail
