// The shipped profiles compiled into the binary: each loads to exactly what parsing its file
// gives, and a file that differs by one byte (or whose base does) is parsed, never replaced.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/policy_loader.h"
#include "profiles/compiled_profiles.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using toolcage::compiled_profiles;
using toolcage::load_policy_file;
using toolcage::test::TempDir;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

const fs::path kShipped = fs::path(TOOLCAGE_SOURCE_DIR) / "profiles";

}  // namespace

TEST_CASE("compiled profiles: each shipped profile is compiled and equals its parsed file") {
    size_t shipped = 0;
    for (const auto& e : fs::directory_iterator(kShipped)) {
        if (e.path().extension() != ".json") continue;
        ++shipped;
        INFO(e.path());
        std::string text = read(e.path());
        CHECK(std::any_of(compiled_profiles().begin(), compiled_profiles().end(),
                          [&](const toolcage::CompiledProfile& c) { return c.text == text; }));
        CHECK(load_policy_file(e.path(), compiled_profiles()) == load_policy_file(e.path()));
    }
    CHECK(shipped == compiled_profiles().size());
}

TEST_CASE("compiled profiles: a copy with the same bytes is served, with its own file and chain") {
    // A stand-in table whose policy differs from the text's, to see which path answered.
    static const std::string text = "{\"name\": \"plain\"}\n";
    static const toolcage::CompiledProfile fake[] = {{text, "", nullptr, [] {
                                                          toolcage::Policy p;
                                                          p.name = "from-the-table";
                                                          return p;
                                                      }}};
    TempDir d;
    fs::path f = d.write("plain.json", text);
    toolcage::Policy p = load_policy_file(f, fake);
    CHECK(p.name == "from-the-table");
    CHECK(p.file == f.string());
    CHECK(p.chain == std::vector<std::string>{fs::weakly_canonical(f).string()});
    CHECK(load_policy_file(d.write("other.json", text + " "), fake).name == "plain");
}

TEST_CASE("compiled profiles: an edited profile is parsed, not taken from the binary") {
    TempDir d;
    std::string def = read(kShipped / "default.json");
    fs::path f = d.write("default.json", replaced(def, "\"min_abi\": 1", "\"min_abi\": 3"));
    CHECK(load_policy_file(f, compiled_profiles()).cage.min_abi == 3);
    // One byte of a comment is enough to leave the table.
    fs::path g = d.write("commented.json", def + "// local\n");
    CHECK(load_policy_file(g, compiled_profiles()).file == g.string());
    CHECK(load_policy_file(g, compiled_profiles()).cage ==
          load_policy_file(kShipped / "default.json").cage);
}

TEST_CASE("compiled profiles: an unmodified child over an edited base gets the edited base") {
    TempDir d;
    // The write list's last entry (the read list names /dev/tty too).
    d.write("default.json", replaced(read(kShipped / "default.json"), "\"/dev/tty\"]",
                                     "\"/dev/tty\", \"/srv/extra\"]"));
    fs::path forge = d.write("forge.json", read(kShipped / "forge.json"));
    toolcage::Policy p = load_policy_file(forge, compiled_profiles());
    CHECK(std::find(p.cage.write.begin(), p.cage.write.end(), "/srv/extra") != p.cage.write.end());
    CHECK(p.chain.size() == 2);
    CHECK(p == load_policy_file(forge));
}

TEST_CASE("compiled profiles: a broken base is reported as without the table") {
    TempDir d;
    d.write("default.json", "{ not json");
    fs::path forge = d.write("forge.json", read(kShipped / "forge.json"));
    std::string with, without;
    try {
        load_policy_file(forge, compiled_profiles());
    } catch (const toolcage::Error& e) {
        with = e.what();
    }
    try {
        load_policy_file(forge);
    } catch (const toolcage::Error& e) {
        without = e.what();
    }
    CHECK_FALSE(with.empty());
    CHECK(with == without);
}
