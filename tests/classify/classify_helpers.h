// Shared by the classifier's tests: the fixed context every table uses (classification is
// lexical, so no directory needs to exist) and a table runner that names the failing row.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/policy.h"
#include "hook/classify/classifier.h"
#include "hook/classify/rules.h"

namespace toolcage::classify::testing {

inline Context test_context() {
    Context c;
    c.cwd = "/home/agent/project";
    c.workspace = "/home/agent/project";
    c.home = "/home/agent";
    c.tmp = "/tmp";
    return c;
}

inline Verdict classify(const std::string& cmd, const Policy& policy = Policy{}) {
    return classify_command(cmd, test_context(), policy);
}

struct Case {
    std::string cmd;
    Decision expected;
    std::string rule = {};  // when set, the verdict's rule id too
};

inline void check_table(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        Verdict v = classify(c.cmd);
        INFO("command: " << c.cmd);
        INFO("got: " << to_string(v.decision) << " " << v.rule << " (" << v.reason << ")");
        CHECK(v.decision == c.expected);
        if (!c.rule.empty()) CHECK(v.rule == c.rule);
        CHECK(is_builtin_rule(v.rule));
        CHECK(!v.reason.empty());
    }
}

}  // namespace toolcage::classify::testing
