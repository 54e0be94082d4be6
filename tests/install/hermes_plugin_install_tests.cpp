// `toolcage install hermes` and the plugin: its files in the profile, its name in
// `plugins: enabled:`, the report of what the installed Hermes enforces, and --print for an
// image template. Uninstall takes out exactly what install put in.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/install/harness.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

// config.yaml as Hermes writes it by default (hooks: {}, plugins.enabled filled by its migration).
const std::string kHermesDefault =
    "model:\n  default: some-model\nhooks: {}\nplugins:\n  enabled: []\n  disabled: []\n";

Run install(const TempDir& d, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"install", "hermes", "--hermes-home", d.str()};
    args.insert(args.end(), more.begin(), more.end());
    return run_toolcage(args, d.str());
}

Run uninstall(const TempDir& d) {
    return run_toolcage({"uninstall", "hermes", "--hermes-home", d.str()}, d.str());
}

}  // namespace

TEST_CASE("install hermes puts the plugin in the profile and enables it; uninstall takes both out",
          "[install][hermes][plugin]") {
    TempDir d;
    write_file(d / "config.yaml", kHermesDefault);
    auto before = snapshot(d.path());
    Run r = install(d, {"--hermes-version", "0.20.3"});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    for (const char* f : {"plugin.yaml", "__init__.py"})
        CHECK(file_exists(d / "plugins" / "toolcage" / f));
    json cfg = json::parse(read_file(d / "plugins/toolcage/config.json"));
    CHECK(cfg["toolcage"] == toolcage_path());
    CHECK(cfg["policy"] == "");  // SOUL.md chooses, for the plugin as for the shell hook
    std::string yaml = yaml_as_json(d / "config.yaml");
    if (!yaml.empty()) {
        json c = json::parse(yaml);
        CHECK(c["plugins"]["enabled"] == json::array({"toolcage"}));
        CHECK(c["plugins"]["disabled"] == json::array());
        CHECK(c["hooks"]["pre_tool_call"][0]["fail_closed"] == true);
        CHECK(c["model"]["default"] == "some-model");
    }
    CHECK(r.out.find("cages (tool_request middleware rewrite)") != std::string::npos);
    // A second run changes nothing.
    auto installed = snapshot(d.path());
    Run again = install(d, {"--hermes-version", "0.20.3"});
    CHECK(again.code == 0);
    CHECK(snapshot(d.path()) == installed);

    Run u = uninstall(d);
    INFO(u.out << u.err);
    REQUIRE(u.code == 0);
    CHECK(snapshot(d.path()) == before);
    CHECK_FALSE(file_exists(d / "plugins"));
}

TEST_CASE("install hermes adds toolcage to a block list under plugins.enabled",
          "[install][hermes][plugin]") {
    TempDir d;
    const std::string config = "plugins:\n  enabled:\n    - disk-cleanup\n  disabled:\n    - x\n";
    write_file(d / "config.yaml", config);
    Run r = install(d);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::string yaml = yaml_as_json(d / "config.yaml");
    if (!yaml.empty())
        CHECK(json::parse(yaml)["plugins"]["enabled"] == json::array({"toolcage", "disk-cleanup"}));
    REQUIRE(uninstall(d).code == 0);
    CHECK(read_file(d / "config.yaml") == config);
}

TEST_CASE("a plugins: key a line scan cannot extend is left alone, with the lines to merge",
          "[install][hermes][plugin]") {
    for (std::string config : {"plugins: {enabled: [a]}\n", "plugins:\n  disabled: [x]\n",
                               "plugins:\n  enabled: [\"a\", [b]]\n"}) {
        TempDir d;
        write_file(d / "config.yaml", config);
        auto before = snapshot(d.path(), true);
        Run r = install(d);
        INFO(config << "\n" << r.out << r.err);
        CHECK(r.code == 2);
        CHECK(r.err.find("    plugins:\n      enabled:\n        - toolcage\n") !=
              std::string::npos);
        CHECK(r.err.find("fail_closed: true") != std::string::npos);
        CHECK(snapshot(d.path(), true) == before);
    }
}

TEST_CASE("a plugins/toolcage directory toolcage did not write is refused",
          "[install][hermes][plugin]") {
    TempDir d;
    write_file(d / "plugins/toolcage/__init__.py", "def register(ctx): pass\n");
    Run r = install(d);
    CHECK(r.code == 2);
    CHECK(r.err.find("a plugin toolcage did not write") != std::string::npos);
    CHECK(read_file(d / "plugins/toolcage/__init__.py") == "def register(ctx): pass\n");
    CHECK_FALSE(file_exists(d / "config.yaml"));
}

TEST_CASE("install hermes --print writes everything for an image template, with no profile",
          "[install][hermes][plugin]") {
    TempDir d;
    Run r = run_toolcage({"install", "hermes", "--print", "--hermes-version", "0.19.0"}, d.str());
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("\"toolcage\": \"" + toolcage_path() + "\"") != std::string::npos);
    CHECK(r.out.find("    plugins:\n      enabled:\n        - toolcage\n") != std::string::npos);
    CHECK(r.out.find("command: \"" + toolcage_path() + " hook --agent hermes\"") !=
          std::string::npos);
    CHECK(r.out.find("\"event\": \"pre_tool_call\"") != std::string::npos);
    CHECK(r.out.find("$HERMES_HOME/plugins/toolcage/") != std::string::npos);
    CHECK(r.out.find("cannot cage (Hermes ignores its modify answer before 0.20.2)") !=
          std::string::npos);
    CHECK(snapshot(d.path()).empty());  // nothing written, not even in the home
}

TEST_CASE("install hermes --dry-run on a profile that does not exist yet prints the template, exit 2",
          "[install][hermes][plugin]") {
    TempDir d;
    Run r = run_toolcage(
        {"install", "hermes", "--dry-run", "--hermes-home", (d / "later").string()}, d.str());
    INFO(r.out << r.err);
    // As Claude's and OpenClaw's dry runs for a file that is not there: exit 2, the profile
    // named, and --print as the way to a template.
    REQUIRE(r.code == 2);
    CHECK(r.err.find((d / "later").string()) != std::string::npos);
    CHECK(r.err.find("--print") != std::string::npos);
    CHECK(r.out.find("Nothing would be changed") != std::string::npos);
    CHECK(r.out.find("fail_closed: true") != std::string::npos);
    CHECK_FALSE(file_exists(d / "later"));
    // A policy that is not installed is refused there too, as for a profile that exists.
    Run bad = run_toolcage({"install", "hermes", "--dry-run", "--hermes-home", (d / "later").string(), "--policy",
                            "no-such-policy"},
                           d.str());
    CHECK(bad.code == 2);
    CHECK(bad.err.find("no-such-policy") != std::string::npos);
    CHECK_FALSE(file_exists(d / "later"));
}

TEST_CASE("install hermes says what each Hermes version enforces, and claims nothing it cannot",
          "[install][hermes][plugin]") {
    auto report = [](const std::string& version) {
        TempDir d;
        return run_toolcage({"install", "hermes", "--print", "--hermes-version", version}, d.str())
            .out;
    };
    std::string v19 = report("0.19.0"), v201 = report("0.20.1"), v203 = report("v0.20.3"),
                old = report("0.18.2"), bad = report("latest");
    CHECK(v19.find("no fail_closed") != std::string::npos);
    CHECK(v201.find("; fail_closed:") != std::string::npos);
    CHECK(v201.find("cannot cage") != std::string::npos);
    CHECK(v203.find("Hermes 0.20.3") != std::string::npos);
    CHECK(v203.find("blocks, cages (modify)") != std::string::npos);
    CHECK(old.find("claims nothing") != std::string::npos);
    CHECK(old.find("cages (") == std::string::npos);
    CHECK(bad.find("claims nothing") != std::string::npos);
}

TEST_CASE("install hermes asks the hermes on PATH for its version", "[install][hermes][plugin]") {
    TempDir d;
    // A Hermes as pip installs it: an entry point whose #! names its Python, and hermes_cli.
    write_file(d / "site/hermes_cli/__init__.py", "__version__ = \"0.20.3\"\n");
    write_file(d / "bin/python3",
               "#!/bin/sh\nPYTHONPATH=" + (d / "site").string() + " exec /usr/bin/python3 \"$@\"\n",
               0755);
    write_file(d / "bin/hermes", "#!" + (d / "bin/python3").string() + "\nimport hermes_cli.main\n",
               0755);
    Run r = run_toolcage({"install", "hermes", "--print"}, d.str(),
                         {"PATH=" + (d / "bin").string() + ":/usr/bin:/bin"});
    INFO(r.out << r.err);
    CHECK(r.out.find("Hermes 0.20.3 (hermes_cli.__version__ of " + (d / "bin/hermes").string()) !=
          std::string::npos);
    Run none = run_toolcage({"install", "hermes", "--print"}, d.str(), {"PATH=/nonexistent"});
    CHECK(none.out.find("no `hermes` on PATH") != std::string::npos);
}
