// The shared corpus (commands.tsv): no unsafe miss at all, and little friction.
#include <fstream>
#include <iostream>
#include <sstream>

#include "classify_helpers.h"

namespace {

using toolcage::Decision;
using toolcage::classify::testing::classify;

// Column 1 uses C-style escapes for \n, \t and \\ only.
std::string decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            char d = s[i + 1];
            if (d == 'n') {
                out += '\n';
                ++i;
                continue;
            }
            if (d == 't') {
                out += '\t';
                ++i;
                continue;
            }
            if (d == '\\') {
                out += '\\';
                ++i;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

}  // namespace

TEST_CASE("classifier: the shared corpus has no unsafe miss and at most 3% friction", "[classify][corpus]") {
    const std::string path = std::string(TOOLCAGE_SHARED_DATA) + "/commands.tsv";
    std::ifstream in(path);
    if (!in) FAIL("cannot open " << path << ": the shared test data is missing (expected commands.tsv there)");
    std::string line;
    std::getline(in, line);  // header
    int rows = 0, unsafe = 0, friction = 0;
    std::ostringstream report;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        size_t t1 = line.find('\t');
        size_t t2 = line.find('\t', t1 + 1);
        REQUIRE(t1 != std::string::npos);
        std::string cmd = decode(line.substr(0, t1));
        std::string expected = line.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
        auto want = toolcage::decision_from_string(expected);
        REQUIRE(want.has_value());
        toolcage::Verdict v = classify(cmd);
        ++rows;
        bool blocks = v.decision == Decision::deny || v.decision == Decision::ask;
        bool is_unsafe = (*want == Decision::deny && !blocks) || (*want == Decision::cage && v.decision == Decision::allow);
        bool is_friction = (*want == Decision::allow && v.decision != Decision::allow) ||
                           (*want == Decision::cage && blocks);
        if (is_unsafe) ++unsafe;
        if (is_friction) ++friction;
        if (is_unsafe || is_friction) {
            report << (is_unsafe ? "UNSAFE   " : "FRICTION ") << expected << " -> " << toolcage::to_string(v.decision)
                   << " [" << v.rule << "] " << cmd << "\n         " << v.reason << "\n";
        }
        CHECK(toolcage::classify::is_builtin_rule(v.rule));
    }
    double rate = rows ? 100.0 * friction / rows : 0;
    std::cout << "corpus: " << rows << " rows, " << unsafe << " unsafe misses, " << friction << " friction ("
              << rate << "%)\n"
              << report.str();
    REQUIRE(rows > 0);
    CHECK(unsafe == 0);
    CHECK(rate <= 3.0);
}
