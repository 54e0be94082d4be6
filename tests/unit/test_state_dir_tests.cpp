// $TOOLCAGE_STATE_DIR, the test suite's own state directory (common/user_home.cpp): taken only
// when it is the user's, private, and marked; what is wrong with a refused one is named.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "common/user_home.h"
#include "temp_dir.h"

namespace {

// Sets TOOLCAGE_STATE_DIR for one check, and puts the suite's own value back afterwards.
struct StateVariable {
    std::string before;
    bool had = false;
    explicit StateVariable(const std::string& value) {
        if (const char* v = ::getenv("TOOLCAGE_STATE_DIR")) before = v, had = true;
        ::setenv("TOOLCAGE_STATE_DIR", value.c_str(), 1);
    }
    ~StateVariable() {
        if (had)
            ::setenv("TOOLCAGE_STATE_DIR", before.c_str(), 1);
        else
            ::unsetenv("TOOLCAGE_STATE_DIR");
    }
};

std::string refusal_for(const std::string& dir) {
    StateVariable v(dir);
    return toolcage::refused_state_variable();
}

}  // namespace

TEST_CASE("a test state directory is taken only when private and marked", "[unit][state]") {
    toolcage::test::TempDir t;
    const std::string dir = (t.path / "state").string();
    const std::string marker = dir + "/.toolcage-test-state";
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);

    // No marker: a variable that names any private directory does not move the state there.
    CHECK(refusal_for(dir).find("TOOLCAGE_STATE_DIR=" + dir + " is ignored (lstat(\"" + marker + "\")") == 0);

    std::ofstream(marker).close();
    REQUIRE(::chmod(marker.c_str(), 0644) == 0);
    CHECK(refusal_for(dir).find(marker + ": mode 0644, not 0600") != std::string::npos);

    REQUIRE(::chmod(marker.c_str(), 0600) == 0);
    CHECK(refusal_for(dir).empty());

    // The directory itself must be private: others' rights on it are refused.
    REQUIRE(::chmod(dir.c_str(), 0755) == 0);
    CHECK(refusal_for(dir).find(dir + ": mode 0755, not 0700") != std::string::npos);
    REQUIRE(::chmod(dir.c_str(), 0700) == 0);

    // A symlink to a good one is not taken, nor is a relative path.
    const std::string link = (t.path / "link").string();
    REQUIRE(::symlink(dir.c_str(), link.c_str()) == 0);
    CHECK(refusal_for(link).find(link + ": a symlink") != std::string::npos);
    CHECK(refusal_for("state").find("not an absolute path") != std::string::npos);
    CHECK(refusal_for(dir + "/").find("not an absolute path without") != std::string::npos);
    CHECK(refusal_for(t.path.string() + "/./state").find("not an absolute path without") != std::string::npos);

    // A marker that is a directory, not a file.
    REQUIRE(::unlink(marker.c_str()) == 0);
    REQUIRE(::mkdir(marker.c_str(), 0700) == 0);
    CHECK(refusal_for(dir).find(marker + ": not a regular file") != std::string::npos);
}

TEST_CASE("while a test state directory is in effect the user's own stay kept from steps", "[unit][state]") {
    // The suite runs this with its own state directory (tests/CMakeLists.txt): then toolcage's
    // state goes there, and the user's own directories are still among those no step is granted.
    if (toolcage::test_state_dir().empty()) {
        WARN("skipped: TOOLCAGE_STATE_DIR names no test state directory (run under ctest)");
        return;
    }
    const auto kept = toolcage::private_state_dirs();
    const auto used = toolcage::state_dir_candidates();
    CHECK(used.front() == toolcage::test_state_dir());
    CHECK(toolcage::state_dir(false) == toolcage::test_state_dir());
    CHECK(std::find(kept.begin(), kept.end(), toolcage::test_state_dir()) != kept.end());
    if (!toolcage::home_state_dir().empty())
        CHECK(std::find(kept.begin(), kept.end(), toolcage::home_state_dir()) != kept.end());
    CHECK(std::find(kept.begin(), kept.end(), "/tmp/toolcage-state-" + std::to_string(::getuid())) != kept.end());
    CHECK(std::find(used.begin(), used.end(), toolcage::home_state_dir()) == used.end());
}
