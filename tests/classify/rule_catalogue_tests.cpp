// The rule catalogue (hook/classify/rules.cpp) against the classifier's code: every rule id a
// `hit(Decision::X, "id", ...)` in hook/classify gives is described, with X among its verdicts,
// so that `toolcage policy rules --long` says what the classifier does.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include "hook/classify/rules.h"

namespace fs = std::filesystem;

TEST_CASE("every rule the classifier gives is in the catalogue, with its verdict", "[rules]") {
    const auto& rules = toolcage::classify::builtin_rules();
    std::map<std::string, const toolcage::classify::RuleDescription*> by_id;
    for (const auto& r : rules) by_id[r.id] = &r;
    const std::regex hit(R"re(hit\(\s*Decision::(\w+)\s*,\s*"([a-z0-9_.\-]+)"\s*,)re");
    std::size_t seen = 0;
    for (const auto& e : fs::directory_iterator(fs::path(TOOLCAGE_SOURCE_DIR) / "hook/classify")) {
        if (e.path().extension() != ".cpp") continue;
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        const std::string s = text.str();
        for (auto it = std::sregex_iterator(s.begin(), s.end(), hit); it != std::sregex_iterator();
             ++it) {
            std::string verdict = (*it)[1], id = (*it)[2];
            INFO(e.path().filename().string() << ": " << id << " " << verdict);
            auto found = by_id.find(id);
            REQUIRE(found != by_id.end());
            CHECK(found->second->verdict.find(verdict) != std::string::npos);
            CHECK_FALSE(found->second->matches.empty());
            CHECK_FALSE(found->second->reason.empty());
            ++seen;
        }
    }
    CHECK(seen > 150);
    CHECK(std::is_sorted(rules.begin(), rules.end(),
                         [](const auto& a, const auto& b) { return a.id < b.id; }));
}

TEST_CASE("the README's table of host lock-outs lists exactly the host.* rules", "[rules]") {
    std::ifstream in(fs::path(TOOLCAGE_SOURCE_DIR) / "README.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string readme = text.str();
    std::set<std::string> in_table;
    const std::regex row(R"(\n\| `(host\.[a-z\-]+)` \|)");
    for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row); it != std::sregex_iterator(); ++it)
        in_table.insert((*it)[1]);
    std::set<std::string> built_in;
    for (const auto& r : toolcage::classify::builtin_rules())
        if (r.id.rfind("host.", 0) == 0) built_in.insert(r.id);
    CHECK(built_in.size() >= 8);
    CHECK(in_table == built_in);
}
