// `toolcage install openclaw` / `uninstall openclaw` against openclaw.json files in /tmp, with
// a stand-in plugin directory (the manifest is all the installer reads).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/install/harness.h"

using namespace toolcage::test;
using ojson = nlohmann::ordered_json;

namespace {

struct Setup {
    TempDir d;
    std::string plugin;
    Setup() {
        plugin = (d / "plugin").string();
        write_file(d / "plugin/openclaw.plugin.json", R"({"id": "toolcage", "configSchema": {}})");
    }
    Run install(std::vector<std::string> more = {}) const {
        std::vector<std::string> args{"install",      "openclaw",
                                      "--config",     (d / "openclaw.json").string(),
                                      "--plugin-dir", plugin};
        args.insert(args.end(), more.begin(), more.end());
        return run_toolcage(args, d.str());
    }
    Run uninstall() const {
        return run_toolcage({"uninstall", "openclaw", "--config", (d / "openclaw.json").string(),
                             "--plugin-dir", plugin},
                            d.str());
    }
};

const std::string kConfig =
    "{\n  \"gateway\": {\n    \"port\": 18789\n  },\n  \"plugins\": {\n    \"entries\": {\n"
    "      \"voice-call\": {\n        \"enabled\": true\n      }\n    }\n  }\n}\n";

}  // namespace

TEST_CASE("install openclaw loads the plugin from its directory and enables it",
          "[install][openclaw]") {
    Setup s;
    write_file(s.d / "openclaw.json", kConfig);
    Run r = s.install();
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    ojson c = ojson::parse(read_file(s.d / "openclaw.json"));
    CHECK(c["gateway"]["port"] == 18789);
    CHECK(c["plugins"]["entries"]["voice-call"]["enabled"] == true);
    CHECK(c["plugins"]["entries"]["toolcage"]["enabled"] == true);
    // The plugin is told where this toolcage is: never a PATH lookup.
    CHECK(c["plugins"]["entries"]["toolcage"]["config"] == ojson({{"bin", toolcage_path()}}));
    CHECK(c["plugins"]["load"]["paths"] == ojson::array({s.plugin}));

    auto installed = snapshot(s.d.path(), true);
    CHECK(s.install().out.find("nothing to change") != std::string::npos);
    CHECK(snapshot(s.d.path(), true) == installed);

    Run u = s.uninstall();
    INFO(u.out << u.err);
    REQUIRE(u.code == 0);
    CHECK(read_file(s.d / "openclaw.json") == kConfig);
}

TEST_CASE("install openclaw adds the plugin to an existing plugins.allow list",
          "[install][openclaw]") {
    Setup s;
    write_file(s.d / "openclaw.json", R"({"plugins": {"allow": ["voice-call"]}})");
    REQUIRE(s.install().code == 0);
    ojson c = ojson::parse(read_file(s.d / "openclaw.json"));
    CHECK(c["plugins"]["allow"] == ojson::array({"voice-call", "toolcage"}));
    REQUIRE(s.uninstall().code == 0);
    CHECK(read_file(s.d / "openclaw.json") == R"({"plugins": {"allow": ["voice-call"]}})");
}

TEST_CASE("install openclaw leaves a JSON5 config alone and prints what to run",
          "[install][openclaw]") {
    Setup s;
    const std::string json5 = "// my config\n{\n  gateway: { port: 18789 },\n}\n";
    write_file(s.d / "openclaw.json", json5);
    Run r = s.install();
    CHECK(r.code == 2);
    CHECK(r.err.find("is not plain JSON") != std::string::npos);
    CHECK(r.err.find("openclaw plugins install --link " + s.plugin) != std::string::npos);
    CHECK(r.err.find("openclaw plugins enable toolcage") != std::string::npos);
    CHECK(r.err.find("\"bin\": \"" + toolcage_path() + "\"") != std::string::npos);
    CHECK(read_file(s.d / "openclaw.json") == json5);
    CHECK(backups(s.d.path()).empty());
}

TEST_CASE("install openclaw refuses bad input and changes nothing", "[install][openclaw]") {
    SECTION("no plugin manifest") {
        Setup s;
        write_file(s.d / "openclaw.json", kConfig);
        Run r = run_toolcage({"install", "openclaw", "--config", (s.d / "openclaw.json").string(),
                              "--plugin-dir", (s.d / "nowhere").string()},
                             s.d.str());
        CHECK(r.code == 2);
        CHECK(r.err.find("openclaw.plugin.json: not found") != std::string::npos);
        CHECK(read_file(s.d / "openclaw.json") == kConfig);
    }
    SECTION("the plugin on the deny list") {
        Setup s;
        write_file(s.d / "openclaw.json", R"({"plugins": {"deny": ["toolcage"]}})");
        Run r = s.install();
        CHECK(r.code == 2);
        CHECK(r.err.find("/plugins/deny lists \"toolcage\"") != std::string::npos);
    }
    SECTION("an unknown policy") {
        Setup s;
        write_file(s.d / "openclaw.json", kConfig);
        Run r = s.install({"--policy", "no-such-policy"});
        CHECK(r.code == 2);
        CHECK(r.err.find("no such installed policy") != std::string::npos);
        CHECK(read_file(s.d / "openclaw.json") == kConfig);
    }
    SECTION("a read-only config") {
        Setup s;
        write_file(s.d / "openclaw.json", kConfig, 0400);
        Run r = s.install();
        CHECK(r.code == 2);
        CHECK(r.err.find("read-only") != std::string::npos);
        CHECK(read_file(s.d / "openclaw.json") == kConfig);
    }
}

TEST_CASE("install openclaw creates a missing openclaw.json; uninstall removes it",
          "[install][openclaw]") {
    Setup s;
    REQUIRE(s.install().code == 0);
    CHECK(ojson::parse(read_file(
              s.d / "openclaw.json"))["plugins"]["entries"]["toolcage"]["enabled"] == true);
    REQUIRE(s.uninstall().code == 0);
    CHECK(!file_exists(s.d / "openclaw.json"));
    CHECK(backups(s.d.path()).empty());
}

TEST_CASE("install openclaw --policy puts the policy in the plugin's config; a second install "
          "without it takes it out",
          "[install][openclaw]") {
    Setup s;
    write_file(s.d / "openclaw.json", kConfig);
    Run r = s.install({"--policy", "forge"});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    ojson c = ojson::parse(read_file(s.d / "openclaw.json"));
    CHECK(c["plugins"]["entries"]["toolcage"]["config"] ==
          ojson({{"bin", toolcage_path()}, {"policy", "forge"}}));
    REQUIRE(s.install().code == 0);
    c = ojson::parse(read_file(s.d / "openclaw.json"));
    CHECK(c["plugins"]["entries"]["toolcage"]["config"] == ojson({{"bin", toolcage_path()}}));
    REQUIRE(s.uninstall().code == 0);
    CHECK(read_file(s.d / "openclaw.json") == kConfig);
}
