// Bad input never crashes the classifier and never yields an unknown rule id; mutated corpus
// commands and random bytes (fixed seed) are fed through classify_command().
#include <fstream>
#include <random>

#include "classify_helpers.h"
#include "tests/corpus_file.h"

using toolcage::Decision;
using toolcage::classify::testing::classify;

namespace {

// The project's corpus, and the team's shared one when it is there.
std::vector<std::string> corpus_commands() {
    std::vector<std::string> out;
    for (const auto& path : {toolcage::test::kProjectCorpus, toolcage::test::kSharedCorpus})
        for (const auto& row : toolcage::test::read_corpus(path)) out.push_back(row.command);
    return out;
}

}  // namespace

TEST_CASE("robustness: mutated commands and random bytes", "[classify][robustness]") {
    std::vector<std::string> seeds = corpus_commands();
    seeds.insert(seeds.end(), {"f(){ f|f& };f", "eval \"$(echo $(echo $(echo rm)))\" -rf ~", "a=(1 2 3); echo ${a[@]:1}",
                               "cat <<A <<B\na\nA\nb\nB", "x=$'\\x01'; rm -rf $x", "${!x}", "${x/#/rm}", "case"});
    REQUIRE(!seeds.empty());
    std::mt19937 rng(12345);
    const std::string alphabet = " \t\n|&;()<>$`'\"\\*?[]{}~=#!-/.:%^@+,0123456789abcxyzrmgit";
    int n = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string s = seeds[rng() % seeds.size()];
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            size_t at = rng() % (s.size() + 1);
            switch (rng() % 4) {
                case 0: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
                case 1:
                    if (at < s.size()) s.erase(at, 1);
                    break;
                case 2: s.insert(at, seeds[rng() % seeds.size()].substr(0, 12)); break;
                default:
                    if (at < s.size()) s[at] = static_cast<char>(rng() % 256);
            }
        }
        toolcage::Verdict v = classify(s);
        ++n;
        INFO(s);
        REQUIRE(toolcage::classify::is_builtin_rule(v.rule));
        REQUIRE(!v.reason.empty());
    }
    for (int round = 0; round < 500; ++round) {
        std::string s(rng() % 200, '\0');
        for (char& c : s) c = static_cast<char>(rng() % 256);
        toolcage::Verdict v = classify(s);
        INFO(s);
        REQUIRE(toolcage::classify::is_builtin_rule(v.rule));
    }
    CHECK(n == 3000);
}

TEST_CASE("robustness: pathological nesting stays bounded", "[classify][robustness]") {
    std::string loops;
    for (int i = 0; i < 6; ++i) loops += "for a" + std::to_string(i) + " in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do ";
    loops += "echo x";
    for (int i = 0; i < 6; ++i) loops += "; done";
    toolcage::Verdict v = classify(loops);
    CHECK(toolcage::classify::is_builtin_rule(v.rule));
    std::string fns;
    for (int i = 0; i < 30; ++i) fns += "f" + std::to_string(i) + "(){ f" + std::to_string(i + 1) + "; f" + std::to_string(i + 1) + "; }; ";
    fns += "f0";
    v = classify(fns);
    CHECK(toolcage::classify::is_builtin_rule(v.rule));
    CHECK(classify("alias a=b; alias b=a; a").decision != Decision::deny);
}
