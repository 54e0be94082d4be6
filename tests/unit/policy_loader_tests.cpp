// Loading policy files: the shipped ones, extends, comments, cycles and unreadable files.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/policy_loader.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using toolcage::Error;
using toolcage::test::TempDir;

namespace {

std::string load_error(const fs::path& f) {
    try {
        toolcage::load_policy_file(f);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

const fs::path kShipped = fs::path(TOOLCAGE_SOURCE_DIR) / "profiles";

}  // namespace

TEST_CASE("the shipped policies load and say what they are") {
    auto def = toolcage::load_policy_file(kShipped / "default.json");
    CHECK(def.name == "default");
    CHECK(def.on_cage == toolcage::Decision::cage);
    CHECK_FALSE(def.relay.enabled);
    CHECK_FALSE(def.cage.protected_paths.empty());
}

TEST_CASE("strict and forge extend default and keep its lists") {
    auto strict = toolcage::load_policy_file(kShipped / "strict.json");
    CHECK(strict.on_cage == toolcage::Decision::deny);
    CHECK(strict.cage.protected_paths.size() >= 9);
    auto forge = toolcage::load_policy_file(kShipped / "forge.json");
    CHECK(forge.relay.enabled);
    REQUIRE(forge.chain.size() == 2);
    CHECK(forge.chain[0].ends_with("default.json"));
    // arrays concatenate: default's entries stay, forge's are added
    auto has = [](const std::vector<std::string>& v, const char* x) {
        return std::find(v.begin(), v.end(), x) != v.end();
    };
    CHECK(has(forge.cage.write, "{workspace}"));
    CHECK(has(forge.cage.write, "{home}/.cache/toolcage-steps"));
    // The user's own caches are never the steps': what a step writes there runs later, unverified.
    for (const char* user_cache : {"{home}/.npm/_cacache", "{home}/.cache/pip", "{home}/.cargo/registry",
                                   "{home}/.cargo/git", "{home}/go/pkg/mod", "{home}/.cache/go-build"}) {
        CHECK_FALSE(has(forge.cage.write, user_cache));
        CHECK_FALSE(has(forge.cage.read, user_cache));
    }
    CHECK_FALSE(has(forge.cage.write, "{home}/.cache"));
    CHECK(forge.cage.min_abi == 4);
    // The model API is the one host forge's worker reaches with the agent's key, on purpose.
    CHECK(forge.relay.credentialed == std::vector<std::string>{"api.anthropic.com"});
    CHECK(has(forge.relay.allow, "api.anthropic.com"));
}

TEST_CASE("extends: cycles, depth and a missing base are refused") {
    TempDir d;
    d.write("a.json", R"({"extends": "b"})");
    d.write("b.json", R"({"extends": "a"})");
    CHECK(load_error(d.path / "a.json").find("/extends: cycle through") != std::string::npos);
    for (int i = 0; i < 12; ++i)
        d.write("l" + std::to_string(i) + ".json",
                i == 11 ? std::string("{}") : "{\"extends\": \"l" + std::to_string(i + 1) + "\"}");
    CHECK(load_error(d.path / "l0.json").find("levels of extends") != std::string::npos);
    d.write("orphan.json", R"({"extends": "not-there-anywhere"})");
    CHECK(load_error(d.path / "orphan.json").find("policy \"not-there-anywhere\" is not installed") !=
          std::string::npos);
}

TEST_CASE("a child's scalars replace the base's and its lists add to them") {
    TempDir d;
    d.write("base.json", R"({"on_cage": "ask", "cage": {"write": ["/a"], "protected_paths": [".git/config"]}})");
    auto child = d.write("child.json",
                         R"({"extends": "base", "on_cage": "deny", "cage": {"write": ["/b", "/a"], "protected_paths": []}})");
    auto p = toolcage::load_policy_file(child);
    CHECK(p.name == "child");
    CHECK(p.on_cage == toolcage::Decision::deny);
    CHECK(p.cage.write == std::vector<std::string>{"/a", "/b"});
    CHECK(p.cage.protected_paths == std::vector<std::string>{".git/config"});
}

TEST_CASE("relay.credentialed adds to the base's, as relay.allow does") {
    TempDir d;
    d.write("base.json", R"({"relay": {"allow": ["api.anthropic.com"], "credentialed": ["api.anthropic.com"]}})");
    auto child = d.write("child.json", R"({"extends": "base", "relay": {"allow": ["api.openai.com"],
                                          "credentialed": ["api.openai.com"]}})");
    auto p = toolcage::load_policy_file(child);
    CHECK(p.relay.allow == std::vector<std::string>{"api.anthropic.com", "api.openai.com"});
    CHECK(p.relay.credentialed == std::vector<std::string>{"api.anthropic.com", "api.openai.com"});
}

TEST_CASE("a policy's name is its own: an unnamed one is named after its file, not its base") {
    TempDir d;
    d.write("base.json", R"({"name": "base-policy"})");
    d.write("mine.json", R"({"extends": "base", "description": "no name of its own"})");
    d.write("named.json", R"({"extends": "base", "name": "named-policy"})");
    CHECK(toolcage::load_policy_file(d.path / "mine.json").name == "mine");
    CHECK(toolcage::load_policy_file(d.path / "named.json").name == "named-policy");
    CHECK(toolcage::load_policy_file(d.path / "base.json").name == "base-policy");
}

TEST_CASE("comments are allowed and JSON errors give line and column") {
    TempDir d;
    auto ok = d.write("c.json", "// a comment\n{ /* inline */ \"name\": \"c\" }\n");
    CHECK(toolcage::load_policy_file(ok).name == "c");
    auto bad = d.write("bad.json", "{\n  \"name\": \"x\",\n}\n");
    std::string e = load_error(bad);
    CHECK(e.find(bad.string() + ": not valid JSON at line 3") == 0);
}

TEST_CASE("a missing, oversized or unreadable policy file is refused with its path") {
    TempDir d;
    CHECK(load_error(d.path / "nope.json").find("no such policy file") != std::string::npos);
    auto big = d.write("big.json", std::string(2 << 20, ' '));
    CHECK(load_error(big).find("larger than 1 MiB") != std::string::npos);
    // Named but not a file: refused at once (a FIFO is not waited on for a writer).
    fs::create_directory(d.path / "dir.json");
    CHECK(load_error(d.path / "dir.json").find("is a directory, not a policy file") != std::string::npos);
    REQUIRE(::mkfifo((d.path / "fifo.json").c_str(), 0600) == 0);
    CHECK(load_error(d.path / "fifo.json").find(d.path.string() + "/fifo.json: not a regular file") == 0);
    if (::geteuid() != 0) {  // root reads a mode-000 file all the same
        auto closed = d.write("closed.json", "{\"name\": \"closed\"}\n");
        fs::permissions(closed, fs::perms::none);
        CHECK(load_error(closed).find(closed.string() + ": cannot read: Permission denied") == 0);
    }
}

TEST_CASE("a policy name that is not installed lists what is") {
    try {
        toolcage::load_policy("no-such-policy-xyz");
        FAIL("loaded a policy that does not exist");
    } catch (const Error& e) {
        std::string m = e.what();
        CHECK(m.find("policy \"no-such-policy-xyz\" is not installed") == 0);
        CHECK(m.find("name an installed policy") != std::string::npos);
    }
}

TEST_CASE("--policy values that are neither a name nor a path are refused") {
    CHECK_THROWS_WITH(toolcage::load_policy("bad name!"), Catch::Contains("neither a policy name"));
}

TEST_CASE("policy names are plain words") {
    CHECK(toolcage::is_policy_name("forge"));
    CHECK(toolcage::is_policy_name("my_policy-2"));
    CHECK_FALSE(toolcage::is_policy_name("../forge"));
    CHECK_FALSE(toolcage::is_policy_name("forge.json"));
    CHECK_FALSE(toolcage::is_policy_name(""));
}
