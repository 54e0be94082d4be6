// Writes to what decides toolcage's behaviour are refused, however the command spells them.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "hook/decision/self_protect.h"
#include "run_binary.h"

using namespace toolcage::hook;
using toolcage::test::TempDir;

namespace {

struct Setup {
    TempDir root;
    std::string home = root / "home";
    std::string profile = home + "/.hermes";
    std::string ws = root / "ws";
    std::string bin = root / "bin";
    std::string policies = root / "share/toolcage/profiles";
    ProtectedSet set;

    Setup() {
        toolcage::test::make_dirs(profile);
        toolcage::test::make_dirs(ws);
        toolcage::test::make_dirs(bin);
        toolcage::test::make_dirs(policies);
        toolcage::test::write_file(profile + "/SOUL.md", "x");
        ToolCall call;
        call.profile_dir = profile;
        call.protected_extra = {ws + "/.claude/settings.json"};
        set = protected_set(call, {policies}, bin, home);
    }
};

}  // namespace

TEST_CASE("commands that write a protected file are refused", "[self-protect]") {
    Setup s;
    const std::string bad[] = {
        "echo x > " + s.profile + "/SOUL.md",
        "echo x >> ~/.hermes/config.yaml",
        "cp evil.yaml ~/.hermes/config.yaml",
        "mv x " + s.profile + "/.env",
        "sed -i s/a/b/ " + s.profile + "/shell-hooks-allowlist.json",
        "tee ~/.hermes/toolcage.json < x",
        "rm -f " + s.bin + "/toolcage",
        "cp ./fake " + s.bin + "/toolcage-relay",
        "echo '{}' > " + s.policies + "/default.json",
        "rm -rf " + s.policies,
        "rm -rf ~/.hermes",
        "mv " + s.bin + " /tmp/old",
        "cd ~/.hermes && echo x > SOUL.md",
        "cd $HERMES_HOME && echo x > SOUL.md",
        "echo x > \"$HERMES_HOME/SOUL.md\"",
        "rm ~/.hermes/*",
        "bash -c 'echo x > ~/.hermes/SOUL.md'",
        "sh -c \"rm " + s.profile + "/config.yaml\"",
        "eval 'echo x > ~/.hermes/SOUL.md'",
        "python3 -c \"open('" + s.profile + "/SOUL.md','w')\"",
        "echo $(echo x > ~/.hermes/SOUL.md)",
        "dd if=/dev/zero of=" + s.profile + "/config.yaml",
        "ln -sf /tmp/x ~/.hermes/.env",
        "echo {} > " + s.ws + "/.claude/settings.json",
        "echo x > \"" + s.profile + "/SOUL.md",  // unterminated: judged by its text
    };
    for (const auto& cmd : bad) {
        INFO(cmd);
        auto v = check_command(cmd, s.ws, s.set, false);
        REQUIRE(v.has_value());
        CHECK(v->decision == toolcage::Decision::deny);
        CHECK(v->rule == "self.protected");
    }
}

TEST_CASE("a read-only command may read protected files but not redirect into them", "[self-protect]") {
    Setup s;
    CHECK_FALSE(check_command("cat ~/.hermes/SOUL.md", s.ws, s.set, true).has_value());
    CHECK_FALSE(check_command("grep x " + s.policies + "/default.json", s.ws, s.set, true).has_value());
    CHECK(check_command("cat x > ~/.hermes/SOUL.md", s.ws, s.set, true).has_value());
}

TEST_CASE("ordinary commands in the workspace are not touched", "[self-protect]") {
    Setup s;
    const std::string fine[] = {
        "npm install",
        "cp .env.example .env",
        "echo x > config.yaml",
        "rm -rf build node_modules",
        "git commit -m 'update SOUL.md docs'",
        "make -j4 && ./run-tests",
        "toolcage run --policy x -- ls",
        s.bin + "/toolcage run -- ls",
        "echo x > /tmp/out.txt",
    };
    for (const auto& cmd : fine) {
        INFO(cmd);
        CHECK_FALSE(check_command(cmd, s.ws, s.set, false).has_value());
    }
}

TEST_CASE("file tools writing protected files are refused, through symlinks too", "[self-protect]") {
    Setup s;
    CHECK(check_write(s.profile + "/SOUL.md", s.set).has_value());
    CHECK(check_write(s.policies + "/new.json", s.set).has_value());
    CHECK(check_write(s.bin + "/toolcage", s.set).has_value());
    CHECK_FALSE(check_write(s.ws + "/main.c", s.set).has_value());
    std::string link = s.ws + "/innocent.md";
    REQUIRE(symlink((s.profile + "/SOUL.md").c_str(), link.c_str()) == 0);
    CHECK(check_write(link, s.set).has_value());
    std::string dangling = s.ws + "/later";
    REQUIRE(symlink((s.profile + "/.env").c_str(), dangling.c_str()) == 0);
    CHECK(check_write(dangling, s.set).has_value());
    std::string dirlink = s.ws + "/prof";
    REQUIRE(symlink(s.profile.c_str(), dirlink.c_str()) == 0);
    CHECK(check_write(dirlink + "/config.yaml", s.set).has_value());
}

TEST_CASE("a command's word through a link is resolved as written: the link first, `..` after it",
          "[self-protect]") {
    Setup s;
    toolcage::test::make_dirs(s.profile + "/skills");
    // k leads into the profile: k/.. is the profile, not the workspace the text names.
    REQUIRE(symlink((s.profile + "/skills").c_str(), (s.ws + "/k").c_str()) == 0);
    REQUIRE(symlink("k/..", (s.ws + "/d").c_str()) == 0);
    for (const std::string& cmd : std::vector<std::string>{"echo x > k/../SOUL.md", "cp evil.yaml d/config.yaml", "rm -f k/../.env",
                                  "tee " + s.ws + "/k/../toolcage.json < x"}) {
        INFO(cmd);
        auto v = check_command(cmd, s.ws, s.set, false);
        REQUIRE(v.has_value());
        CHECK(v->rule == "self.protected");
    }
    // The same names with no link on the way are the workspace's own.
    toolcage::test::make_dirs(s.ws + "/plain");
    for (const std::string cmd : {"echo x > plain/../SOUL.md", "cp evil.yaml plain/config.yaml"}) {
        INFO(cmd);
        CHECK_FALSE(check_command(cmd, s.ws, s.set, false).has_value());
    }
}
