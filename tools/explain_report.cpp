#include "tools/explain_report.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

#include "hook/classify/rules.h"

namespace toolcage::cli {

namespace {

// What the commands that select a policy name it by: the user's new policy has no name yet.
constexpr const char* kPolicyName = "NAME";

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

// The override that changes the verdict: every rule that fired at the deciding severity must
// change for the verdict to change, each to the next milder verdict.
struct Change {
    Decision top = Decision::allow;
    Decision want = Decision::ask;
    std::vector<std::string> rules;
    bool own = false;  // one of them is the policy's own rule
};

Change change_for(const classify::Explanation& e, const Policy& policy) {
    Change c;
    for (const auto& h : e.hits) c.top = std::max(c.top, h.decision);
    std::set<std::string> deciding;
    for (const auto& h : e.hits)
        if (h.decision == c.top) deciding.insert(h.rule);
    if (deciding.empty()) deciding.insert(e.verdict.rule);
    c.want = milder(c.top);
    for (const auto& id : deciding) {
        c.rules.push_back(id);
        c.own = c.own || std::any_of(policy.rules.begin(), policy.rules.end(),
                                     [&](const ExtraRule& r) { return r.id == id; });
    }
    return c;
}

bool parse_failed(const classify::Explanation& e) {
    return std::any_of(e.hits.begin(), e.hits.end(),
                       [](const classify::RuleHit& h) { return h.rule.starts_with("parse."); });
}

// The same rule often fires once per argument: each (rule, verdict, reason) once.
std::vector<classify::RuleHit> distinct_hits(const classify::Explanation& e) {
    std::set<std::string> seen;
    std::vector<classify::RuleHit> out;
    for (const auto& h : e.hits) {
        std::string key = h.rule + '\x1f' + std::string(to_string(h.decision)) + '\x1f' + h.reason;
        if (seen.insert(key).second) out.push_back(h);
    }
    return out;
}

// How each agent toolcage is installed into is pointed at the new policy: a policy installed
// under a new name changes nothing until the agent's hook runs with it.
std::string select_text(const std::vector<PolicySelection>& select) {
    const std::string name = kPolicyName;
    std::string o;
    if (select.empty())
        return "           and run the agent's hook with it: `toolcage install claude|hermes|openclaw --policy " + name +
               "` (" + name + ": the installed policy's name; no agent runs toolcage's hook yet)\n";
    o = "           and point each agent at it (" + name + ": the installed policy's name):\n";
    for (const auto& a : select) {
        o += "             " + a.agent + " (" + a.where + "): " + a.command + "\n";
        if (!a.line.empty()) o += "               or the line " + a.line + "\n";
    }
    return o;
}

}  // namespace

nlohmann::json explain_json(const std::string& command, const classify::Explanation& e,
                            const Policy& policy, const std::vector<PolicySelection>& select) {
    nlohmann::json hits = nlohmann::json::array();
    for (const auto& h : distinct_hits(e)) {
        nlohmann::json j = {{"rule", h.rule}, {"verdict", std::string(to_string(h.decision))}, {"reason", h.reason}};
        if (h.builtin != h.decision) j["builtin_verdict"] = std::string(to_string(h.builtin));
        hits.push_back(std::move(j));
    }
    Change c = change_for(e, policy);
    nlohmann::json overrides = nlohmann::json::object();
    for (const auto& id : c.rules) overrides[id] = std::string(to_string(c.want));
    nlohmann::json agents = nlohmann::json::array();
    for (const auto& a : select) {
        nlohmann::json j = {{"agent", a.agent}, {"where", a.where}, {"command", a.command}};
        if (!a.line.empty()) j["soul_line"] = "toolcage: " + std::string(kPolicyName);
        agents.push_back(std::move(j));
    }
    return {{"command", command},
            {"parsed", !parse_failed(e)},
            {"programs", e.programs},
            {"rules_fired", hits},
            {"verdict", std::string(to_string(e.verdict.decision))},
            {"rule", e.verdict.rule},
            {"reason", e.verdict.reason},
            {"policy", policy.name},
            {"policy_file", policy.file},
            {"to_change", {{"verdict", std::string(to_string(c.want))},
                           {"overrides", overrides},
                           {"policy_name", kPolicyName},
                           {"select", agents}}}};
}

std::string explain_text(const std::string& command, const classify::Explanation& e,
                         const Policy& policy, const std::vector<PolicySelection>& select) {
    std::ostringstream o;
    const Verdict& v = e.verdict;
    o << "command:   " << command << '\n';
    o << "parse:     "
      << (parse_failed(e) ? "refused by the shell parser (see the parse.* rule below)"
                       : "parsed; " + std::to_string(e.programs.size()) + " program call(s) found")
      << '\n';
    o << "programs:  ";
    if (e.programs.empty()) o << "(none)";
    for (std::size_t i = 0; i < e.programs.size(); ++i) o << (i ? ", " : "") << e.programs[i];
    o << '\n';
    o << "rules that fired:\n";
    if (e.hits.empty()) o << "  (none: nothing runs)\n";
    for (const auto& h : distinct_hits(e)) {
        o << "  " << pad(std::string(to_string(h.decision)), 6) << pad(h.rule, 26) << h.reason;
        if (h.builtin != h.decision)
            o << " [built-in verdict " << to_string(h.builtin) << ", changed by overrides]";
        if (std::any_of(policy.rules.begin(), policy.rules.end(), [&](const ExtraRule& r) { return r.id == h.rule; }))
            o << " [the policy's own rule]";
        o << '\n';
    }
    o << "verdict:   " << to_string(v.decision) << " (rule " << v.rule << "): " << v.reason << '\n';
    o << "policy:    " << policy.name << (policy.file.empty() ? "" : " (" + policy.file + ")")
      << '\n';

    const Change c = change_for(e, policy);
    const Decision top = c.top, want = c.want;
    std::string entries;
    for (const auto& id : c.rules)
        entries += (entries.empty() ? "" : ", ") + ("\"" + id + "\": \"" + std::string(to_string(want)) + "\"");
    if (v.decision != top)
        o << "note:      the policy's \"on_cage\" turns cage verdicts into "
          << to_string(v.decision) << '\n';
    o << "to change: "
      << (top == Decision::allow ? "make it stricter" : "make it " + std::string(to_string(want)))
      << " with the policy's \"overrides\": {" << entries << "}";
    if (c.own) o << " (or edit the policy's own rule of that id)";
    o << "\n           then `toolcage policy validate FILE` and `toolcage policy install FILE`\n";
    o << select_text(select);
    o << "(the hook also protects toolcage's own files, git config and protected paths; `toolcage "
         "check` "
         "shows the classifier alone)\n";
    return o.str();
}

}  // namespace toolcage::cli
