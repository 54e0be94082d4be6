// The command corpora: the project's own (tests/data/commands.tsv) and the team's shared one
// when it is there beside the project. No unsafe miss at all, and little friction.
#include <iostream>
#include <sstream>

#include "classify_helpers.h"
#include "tests/corpus_file.h"

namespace {

using toolcage::Decision;
using toolcage::classify::testing::classify;
using toolcage::test::kProjectCorpus;
using toolcage::test::kSharedCorpus;
using toolcage::test::read_corpus;

void check_corpus(const std::string& path) {
    bool found = false;
    auto rows = read_corpus(path, &found);
    if (!found) FAIL("cannot open " << path);
    int unsafe = 0, friction = 0;
    std::ostringstream report;
    for (const auto& row : rows) {
        auto want = toolcage::decision_from_string(row.expected);
        INFO("row: " << row.command << " (expected \"" << row.expected << "\")");
        REQUIRE(want.has_value());
        toolcage::Verdict v = classify(row.command);
        bool blocks = v.decision == Decision::deny || v.decision == Decision::ask;
        bool is_unsafe = (*want == Decision::deny && !blocks) || (*want == Decision::cage && v.decision == Decision::allow);
        bool is_friction = (*want == Decision::allow && v.decision != Decision::allow) ||
                           (*want == Decision::cage && blocks);
        if (is_unsafe) ++unsafe;
        if (is_friction) ++friction;
        if (is_unsafe || is_friction) {
            report << (is_unsafe ? "UNSAFE   " : "FRICTION ") << row.expected << " -> "
                   << toolcage::to_string(v.decision) << " [" << v.rule << "] " << row.command << "\n         "
                   << v.reason << "\n";
        }
        CHECK(toolcage::classify::is_builtin_rule(v.rule));
    }
    double rate = rows.empty() ? 0 : 100.0 * friction / static_cast<double>(rows.size());
    std::cout << path << ": " << rows.size() << " rows, " << unsafe << " unsafe misses, " << friction
              << " friction (" << rate << "%)\n"
              << report.str();
    REQUIRE(!rows.empty());
    CHECK(unsafe == 0);
    CHECK(rate <= 2.0);
}

}  // namespace

TEST_CASE("classifier: the project's corpus has no unsafe miss and at most 2% friction", "[classify][corpus]") {
    check_corpus(kProjectCorpus);
}

TEST_CASE("classifier: the shared corpus has no unsafe miss and at most 2% friction, when it is there",
          "[classify][corpus][shared]") {
    bool found = false;
    read_corpus(kSharedCorpus, &found);
    if (!found) {
        WARN("skipped: ../shared/data/commands.tsv not present (" << kSharedCorpus << ")");
        return;
    }
    check_corpus(kSharedCorpus);
}
