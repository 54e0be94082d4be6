#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cage/step/workspace.h"
#include "common/error.h"

using namespace toolcage::cage;
namespace fs = std::filesystem;

TEST_CASE("placeholders expand; bad ones are refused", "[cage][workspace]") {
    StepPaths p{"/w/sub", "/w", "/tmp/toolcage-x", "/home/u"};
    CHECK(expand_placeholders("{workspace}", p) == "/w");
    CHECK(expand_placeholders("{workspace}/", p) == "/w");
    CHECK(expand_placeholders("{home}/.npm", p) == "/home/u/.npm");
    CHECK(expand_placeholders("{tmp}", p) == "/tmp/toolcage-x");
    CHECK(expand_placeholders("/usr/../etc", p) == "/etc");
    CHECK_THROWS_AS(expand_placeholders("{cwd}/x", p), toolcage::Error);
    CHECK_THROWS_AS(expand_placeholders("relative/x", p), toolcage::Error);
    CHECK_THROWS_AS(expand_placeholders("{workspace", p), toolcage::Error);
    p.home.clear();
    CHECK(expand_placeholders("{home}/.npm", p).empty());

    toolcage::CagePolicy cage;
    cage.read = {"/usr", "{home}/.cache"};
    cage.env_set = {{"NPM_CONFIG_CACHE", "{tmp}/npm"}, {"CI", "1"}};
    ExpandedCage x = expand_cage_policy(cage, p);
    CHECK(x.read == std::vector<std::string>{"/usr"});
    REQUIRE(x.notes.size() == 1);
    CHECK(x.notes[0].find("HOME is not set") != std::string::npos);
    CHECK(x.env_set["NPM_CONFIG_CACHE"] == "/tmp/toolcage-x/npm");
    CHECK(x.env_set["CI"] == "1");
}
