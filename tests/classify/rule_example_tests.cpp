// Rules a policy writes: a program and its words ("restic forget"), examples the rule must and
// must not fire on, checked with the whole policy when it loads.
#include <nlohmann/json.hpp>

#include "classify_helpers.h"
#include "common/error.h"
#include "common/policy_schema.h"

using toolcage::Decision;
using toolcage::ExtraRule;
using toolcage::Policy;
using toolcage::classify::rule_example_errors;
using toolcage::classify::testing::classify;

namespace {

Policy restic_policy(std::vector<std::string> match, std::vector<std::string> not_match) {
    Policy p;
    p.file = "team.json";
    ExtraRule r;
    r.id = "team.restic-forget";
    r.program = "restic";
    r.words = {"forget"};
    r.decision = Decision::deny;
    r.reason = "restic forget deletes snapshots";
    r.match = std::move(match);
    r.not_match = std::move(not_match);
    p.rules.push_back(r);
    return p;
}

}  // namespace

TEST_CASE("policy rules: words match in order, options with their values", "[classify][policy][rules]") {
    Policy p;
    ExtraRule r;
    r.id = "team.tool-purge";
    r.program = "inhouse";
    r.words = {"cache", "--purge"};
    r.decision = Decision::deny;
    r.reason = "purges the shared cache";
    p.rules.push_back(r);
    CHECK(classify("inhouse cache --purge", p).decision == Decision::deny);
    CHECK(classify("inhouse cache --verbose --purge=all", p).rule == "team.tool-purge");
    CHECK(classify("sudo inhouse cache --purge", p).decision == Decision::deny);
    CHECK(classify("bash -c 'inhouse cache --purge'", p).decision == Decision::deny);
    CHECK(classify("inhouse --purge cache", p).rule != "team.tool-purge");  // not in that order
    CHECK(classify("inhouse cache list", p).decision == Decision::cage);
    CHECK(classify("other cache --purge", p).decision != Decision::deny);
}

TEST_CASE("policy rules: every example holds, or the error names it", "[classify][policy][rules]") {
    CHECK(rule_example_errors(restic_policy({"restic forget --prune", "sudo restic -r /srv/b forget"},
                                            {"restic snapshots", "restic backup ."}))
              .empty());

    std::vector<std::string> missed = rule_example_errors(restic_policy({"restic prune"}, {}));
    REQUIRE(missed.size() == 1);
    CHECK(missed[0].find("team.json: /rules/0/match/0: \"restic prune\"") == 0);
    CHECK(missed[0].find("does not fire") != std::string::npos);
    CHECK(missed[0].find("backup.delete") != std::string::npos);  // what judged it instead

    std::vector<std::string> wrong = rule_example_errors(restic_policy({}, {"restic snapshots", "restic forget x"}));
    REQUIRE(wrong.size() == 1);
    CHECK(wrong[0].find("team.json: /rules/0/not_match/1: \"restic forget x\"") == 0);
    CHECK(wrong[0].find("must not") != std::string::npos);
}

TEST_CASE("policy rules: the file form, with words, examples and an id of its own", "[classify][policy][rules]") {
    nlohmann::json doc = nlohmann::json::parse(R"({
        "name": "team",
        "rules": [{"program": "restic", "words": ["forget"], "verdict": "deny",
                   "reason": "restic forget deletes snapshots",
                   "match": ["restic forget --prune"], "not_match": ["restic snapshots"]}]
    })");
    toolcage::validate_policy_json(doc, "team.json");
    Policy p = toolcage::policy_from_json(doc, "team.json");
    REQUIRE(p.rules.size() == 1);
    CHECK(p.rules[0].id == "policy.restic.forget");
    CHECK(p.rules[0].words == std::vector<std::string>{"forget"});
    CHECK(p.rules[0].match == std::vector<std::string>{"restic forget --prune"});
    // A built-in refusal of the same verdict decides first; the rule fires all the same.
    toolcage::classify::Explanation e =
        toolcage::classify::explain_command("restic forget --keep-last 1", toolcage::classify::testing::test_context(), p);
    CHECK(std::any_of(e.hits.begin(), e.hits.end(), [](const auto& h) { return h.rule == "policy.restic.forget"; }));
    CHECK(toolcage::derived_rule_id("My Tool", {"--force", "x"}) == "policy.my-tool.force-x");

    nlohmann::json bad = nlohmann::json::parse(
        R"({"rules": [{"program": "restic", "words": ["for get"], "verdict": "deny", "reason": "r"},
                      {"program": "restic", "verdict": "deny", "reason": "r", "match": "restic forget"}]})");
    std::vector<std::string> errors = toolcage::policy_json_errors(bad, "team.json");
    auto has = [&](const std::string& s) {
        return std::any_of(errors.begin(), errors.end(), [&](const std::string& err) { return err.find(s) != std::string::npos; });
    };
    CHECK(has("team.json: /rules/0/words/0"));
    CHECK(has("team.json: /rules/1/match"));
}
