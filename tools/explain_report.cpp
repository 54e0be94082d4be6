#include "tools/explain_report.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "hook/classify/rules.h"

namespace toolcage::cli {

namespace {

// The next milder verdict, which an override of the deciding rule would give; an allow can
// only be made stricter.
Decision milder(Decision d) {
    switch (d) {
        case Decision::deny:
            return Decision::ask;
        case Decision::ask:
            return Decision::cage;
        case Decision::cage:
            return Decision::allow;
        case Decision::allow:
            return Decision::ask;
    }
    return Decision::ask;
}

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

}  // namespace

std::string explain_text(const std::string& command, const classify::Explanation& e,
                         const Policy& policy) {
    std::ostringstream o;
    const Verdict& v = e.verdict;
    o << "command:   " << command << '\n';
    bool parse_failed = std::any_of(e.hits.begin(), e.hits.end(), [](const classify::RuleHit& h) {
        return h.rule.starts_with("parse.");
    });
    o << "parse:     "
      << (parse_failed ? "refused by the shell parser (see the parse.* rule below)"
                       : "parsed; " + std::to_string(e.programs.size()) + " program call(s) found")
      << '\n';
    o << "programs:  ";
    if (e.programs.empty()) o << "(none)";
    for (std::size_t i = 0; i < e.programs.size(); ++i) o << (i ? ", " : "") << e.programs[i];
    o << '\n';
    o << "rules that fired:\n";
    if (e.hits.empty()) o << "  (none: nothing runs)\n";
    // The same rule often fires once per argument: each (rule, verdict, reason) once.
    std::set<std::string> seen;
    for (const auto& h : e.hits) {
        std::string key = h.rule + '\x1f' + std::string(to_string(h.decision)) + '\x1f' + h.reason;
        if (!seen.insert(key).second) continue;
        o << "  " << pad(std::string(to_string(h.decision)), 6) << pad(h.rule, 26) << h.reason;
        if (h.builtin != h.decision)
            o << " [built-in verdict " << to_string(h.builtin) << ", changed by overrides]";
        o << '\n';
    }
    o << "verdict:   " << to_string(v.decision) << " (rule " << v.rule << "): " << v.reason << '\n';
    o << "policy:    " << policy.name << (policy.file.empty() ? "" : " (" + policy.file + ")")
      << '\n';

    // Every rule that fired at the deciding severity must change for the verdict to change.
    Decision top = Decision::allow;
    for (const auto& h : e.hits) top = std::max(top, h.decision);
    std::set<std::string> deciding;
    for (const auto& h : e.hits)
        if (h.decision == top) deciding.insert(h.rule);
    if (deciding.empty()) deciding.insert(v.rule);
    const Decision want = milder(top);
    std::string entries;
    bool own = false;
    for (const auto& id : deciding) {
        entries += (entries.empty() ? "" : ", ") +
                   ("\"" + id + "\": \"" + std::string(to_string(want)) + "\"");
        own = own || std::any_of(policy.rules.begin(), policy.rules.end(),
                                 [&](const ExtraRule& r) { return r.id == id; });
    }
    if (v.decision != top)
        o << "note:      the policy's \"on_cage\" turns cage verdicts into "
          << to_string(v.decision) << '\n';
    o << "to change: "
      << (top == Decision::allow ? "make it stricter" : "make it " + std::string(to_string(want)))
      << " with the policy's \"overrides\": {" << entries << "}";
    if (own) o << " (or edit the policy's own rule of that id)";
    o << "\n           then `toolcage policy validate FILE` and `toolcage policy install FILE`\n";
    o << "(the hook also protects toolcage's own files, git config and protected paths; `toolcage "
         "check` "
         "shows the classifier alone)\n";
    return o.str();
}

}  // namespace toolcage::cli
