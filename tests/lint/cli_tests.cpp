// `toolcage policy openshell` and `toolcage policy lint` as a user runs them: shipped policies,
// a policy that extends one, a Hermes .env, the sandbox's own OpenShell policies.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/hook/run_binary.h"
#include "tests/lint/lint_test_helpers.h"

using toolcage::lint::test::has;
using toolcage::test::run_binary;
using toolcage::test::RunResult;
using toolcage::test::TempDir;
using toolcage::test::write_file;

namespace {
const std::string kFixtures = TOOLCAGE_LINT_FIXTURES;

struct Home {
    TempDir dir;
    std::map<std::string, std::string> env() const {
        return {{"PATH", "/usr/bin:/bin"}, {"HOME", dir.path()}, {"LANG", "C.UTF-8"}};
    }
};

RunResult run_toolcage(const Home& home, std::vector<std::string> args) {
    return run_binary(TOOLCAGE_BIN, args, "", home.env());
}

const std::vector<std::string> kRegistry = {"--npm-registry", "https://registry.example.org/"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
}  // namespace

TEST_CASE("policy openshell fills {npm_registry} in forge and in a policy that extends it") {
    Home home;
    RunResult forge =
        run_toolcage(home, std::vector<std::string>{"policy", "openshell", "forge"} + kRegistry);
    INFO(forge.err);
    REQUIRE(forge.exit_code == 0);
    CHECK(has(forge.out, "      - host: \"registry.example.org\"\n        port: 443\n"));
    CHECK_FALSE(
        has(forge.out, "tls: skip"));  // stand-alone: OpenShell's default, beside any stock policy
    CHECK_FALSE(has(forge.out, "{npm_registry}"));
    // The model API, declared in relay.credentialed, gets the inspected shape.
    CHECK(has(forge.out,
              "      - host: \"api.anthropic.com\"\n        port: 443\n        protocol: rest\n"
              "        access: read-write\n        enforcement: enforce\n"));
    CHECK(has(forge.out, "      - path: \"" + std::string(TOOLCAGE_RELAY_BIN) + "\"\n"));

    RunResult team = run_toolcage(
        home,
        std::vector<std::string>{"policy", "openshell", kFixtures + "/team.json"} + kRegistry);
    INFO(team.err);
    REQUIRE(team.exit_code == 0);
    CHECK(has(team.out, "network_policies:\n  toolcage_relay_team:\n"));
    CHECK(has(team.out, "host: \"registry.example.org\""));
    CHECK(has(team.out, "host: \"pkgs.example.com\""));
    CHECK(has(team.out, "host: \"github.com\""));
}

TEST_CASE(
    "policy openshell fills the registry as the cage does: from the user's own npmrc, never "
    "HOME's") {
    // HOME is the agent shell's to set: a .npmrc under a HOME that is not the user database's
    // home names no registry (the real ~/.npmrc, /etc/npmrc or npm's default does).
    Home home;
    write_file(home.dir / ".npmrc", "registry=https://npm.internal.example/\n");
    RunResult r = run_toolcage(home, {"policy", "openshell", "forge"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(has(r.out, "npm.internal.example"));
    CHECK_FALSE(has(r.out, "{npm_registry}"));
}

TEST_CASE("policy openshell on a policy without a relay says why it prints nothing") {
    Home home;
    for (const char* name : {"default", "strict"}) {
        RunResult r =
            run_toolcage(home, std::vector<std::string>{"policy", "openshell", name} + kRegistry);
        INFO(name << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(has(r.err, "the relay is disabled and allows nothing"));
        CHECK(has(r.err, "choose a policy with a relay"));
    }
}

TEST_CASE("policy openshell refuses a policy that breaks the checks; --force prints it loudly") {
    Home home;
    write_file(home.dir / ".env", "OPENROUTER_API_KEY=sk-or-x\nGITHUB_TOKEN=ghp_x\n");
    auto args = std::vector<std::string>{"policy", "openshell", kFixtures + "/team.json",
                                         "--agent-env", home.dir / ".env"} +
                kRegistry;
    RunResult refused = run_toolcage(home, args);
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK(has(refused.err,
              "forge.json: /relay/allow/8: \"github.com\" lets the relay reach a host that "
              "holds a credential: github.com:443 holds GITHUB_TOKEN in " +
                  home.dir / ".env line 2"));
    CHECK(has(refused.err, "fix: remove \"github.com\" from relay.allow"));
    CHECK(has(refused.err, "pass --force"));

    RunResult forced = run_toolcage(home, args + std::vector<std::string>{"--force"});
    CHECK(forced.exit_code == 0);
    CHECK(has(forced.out, "host: \"github.com\""));
    CHECK(has(forced.err, "WARNING: printed with --force"));
}

TEST_CASE("policy lint: the shipped forge with a typical Hermes .env lints clean") {
    Home home;
    RunResult r =
        run_toolcage(home, std::vector<std::string>{"policy", "lint", "forge", "--agent-env",
                                                    kFixtures + "/hermes.env"} +
                               kRegistry);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(has(r.out, "forge.json: clean\n"));

    // With the model API's provider profile too: the relay's endpoint has the profile's shape.
    RunResult p =
        run_toolcage(home, std::vector<std::string>{"policy", "lint", "forge", "--agent-env",
                                                    kFixtures + "/hermes.env", "--providers",
                                                    kFixtures + "/provider_claude_code.yaml"} +
                               kRegistry);
    INFO(p.out << p.err);
    CHECK(p.exit_code == 0);
}

TEST_CASE("policy lint --json reports each finding with file, field and fix, and exits 1") {
    Home home;
    write_file(home.dir / "hermes.env", "OPENROUTER_API_KEY=sk-or-x\nGH_TOKEN=ghp_x\n");
    RunResult r = run_toolcage(
        home, std::vector<std::string>{"policy", "lint", kFixtures + "/team.json", "--agent-env",
                                       home.dir / "hermes.env", "--openshell-policy",
                                       kFixtures + "/sandbox_pypi.yaml", "--json"} +
                  kRegistry);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["clean"] == false);
    std::set<std::string> rules;
    for (const auto& f : doc["findings"]) {
        rules.insert(f["rule"].get<std::string>());
        CHECK(!f["file"].get<std::string>().empty());
        CHECK(!f["field"].get<std::string>().empty());
        CHECK(!f["fix"].get<std::string>().empty());
    }
    CHECK(rules.count("relay.credential-host"));
    CHECK(
        rules.count("openshell.ambiguity"));  // pypi.org: skipped there, the relay's in the default
    const auto& first = doc["findings"][0];
    CHECK(first["rule"] == "relay.credential-host");
    CHECK(first["field"] == "/relay/allow/8");
    CHECK(has(first["file"].get<std::string>(), "forge.json"));
}

TEST_CASE("policy lint errors name the file and the fix, and exit 2") {
    Home home;
    RunResult missing = run_toolcage(
        home, {"policy", "lint", "forge", "--openshell-policy", "/nonexistent/p.yaml"});
    CHECK(missing.exit_code == 2);
    CHECK(has(missing.err, "/nonexistent/p.yaml: cannot read the OpenShell policy"));
    CHECK(has(missing.err, "check the path"));

    RunResult bad =
        run_toolcage(home, std::vector<std::string>{"policy", "lint", "forge", "--openshell-policy",
                                                    kFixtures + "/bad.yaml"} +
                               kRegistry);
    CHECK(bad.exit_code == 2);
    CHECK(has(bad.err, "bad.yaml: line "));
    CHECK(has(bad.err, "not valid YAML"));

    RunResult env =
        run_toolcage(home, std::vector<std::string>{"policy", "lint", "forge", "--agent-env",
                                                    kFixtures + "/bad.yaml"} +
                               kRegistry);
    CHECK(env.exit_code == 2);
    CHECK(has(env.err, "bad.yaml: line 1: not a KEY=VALUE assignment"));
}

TEST_CASE("policy openshell --base prints the sandbox's policy with the relay's access merged in") {
    Home home;
    RunResult r =
        run_toolcage(home, std::vector<std::string>{"policy", "openshell", "forge", "--base",
                                                    kFixtures + "/stock_base.yaml", "--relay",
                                                    "/usr/local/bin/toolcage-relay"} +
                               kRegistry);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "github_rest_api:"));       // the base's rules, kept
    CHECK(has(r.out, "toolcage_relay_forge:"));  // and the relay's
    CHECK(has(r.out, "tls: skip"));              // a host the base leaves free
    // The base's own provider layer is a credential the relay may not reach undeclared.
    write_file(home.dir / "p.json",
               "{\"extends\": \"forge\", \"relay\": {\"allow\": [\"api.github.com\"]}}");
    RunResult cred = run_toolcage(
        home, std::vector<std::string>{"policy", "openshell", home.dir / "p.json", "--base",
                                       kFixtures + "/stock_full_with_provider.yaml", "--relay",
                                       "/usr/local/bin/toolcage-relay"} +
                  kRegistry);
    CHECK(cred.exit_code == 2);
    CHECK(cred.out.empty());
    CHECK(has(cred.err, "_provider_github"));
    CHECK(has(cred.err, "relay.credentialed"));
}

TEST_CASE("policy openshell refuses a --relay path OpenShell would expand as a glob") {
    Home home;
    for (const char* path :
         {"/usr/**", "/usr/bin/toolcage-relay*", "/opt/[a]/toolcage-relay", "relative/relay"}) {
        INFO(path);
        RunResult r = run_toolcage(
            home,
            std::vector<std::string>{"policy", "openshell", "forge", "--relay", path} + kRegistry);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(has(r.err, std::string("\"") + path + "\""));
    }
}

TEST_CASE("policy lint refuses what is not a regular policy file, by name, without hanging") {
    Home home;
    ::mkfifo((home.dir / "fifo.yaml").c_str(), 0600);
    write_file(home.dir / "typo.yaml",
               "version: 1\nnetwork_policies:\n  a:\n    endpoints:\n"
               "      - {host: pypi.org, port: 443, tsl: skip}\n");
    for (const auto& [file, reason] : std::vector<std::pair<std::string, std::string>>{
             {"/dev/zero", "not a regular file"},
             {home.dir.path(), "not a regular file (a directory)"},
             {home.dir / "fifo.yaml", "not a regular file (a FIFO)"},
             {home.dir / "typo.yaml", "network_policies.a.endpoints[0].tsl: unknown field"}}) {
        INFO(file);
        RunResult r = run_toolcage(
            home, std::vector<std::string>{"policy", "lint", "forge", "--openshell-policy", file} +
                      kRegistry);
        CHECK(r.exit_code == 2);
        CHECK(has(r.err, file + ": "));
        CHECK(has(r.err, reason));
    }
}

TEST_CASE("relay.allow_ranges is validated with the policy, and doctor shows it") {
    Home home;
    write_file(home.dir / "bad.json",
               "{\"extends\": \"forge\", \"relay\": {\"allow_ranges\": [\"169.254.0.0/16\", "
               "\"10.0.0.1/8\"]}}");
    RunResult bad = run_toolcage(home, {"policy", "validate", home.dir / "bad.json"});
    CHECK(bad.exit_code != 0);
    const std::string all = bad.out + bad.err;
    CHECK(has(all, "/relay/allow_ranges/0"));
    CHECK(has(all, "never dials"));
    CHECK(has(all, "/relay/allow_ranges/1"));
    CHECK(has(all, "bits set after its prefix"));
    write_file(home.dir / "type.json",
               "{\"extends\": \"forge\", \"relay\": {\"allow_ranges\": [7]}}");
    RunResult type = run_toolcage(home, {"policy", "validate", home.dir / "type.json"});
    CHECK(type.exit_code != 0);
    CHECK(has(type.out + type.err, "/relay/allow_ranges/0"));
    write_file(home.dir / "ours.json",
               "{\"extends\": \"forge\", \"relay\": {\"allow_ranges\": [\"192.0.2.0/24\"]}}");
    RunResult ok = run_toolcage(home, {"policy", "validate", home.dir / "ours.json"});
    CHECK(ok.exit_code == 0);
    RunResult doctor = run_toolcage(home, {"doctor", "--policy", home.dir / "ours.json", "--json"});
    auto doc = nlohmann::json::parse(doctor.out);
    CHECK(doc["relay_allow_ranges"] == nlohmann::json::array({"192.0.2.0/24"}));
}

TEST_CASE("relay.require_sni is validated with the policy, and doctor shows it") {
    Home home;
    write_file(home.dir / "bad.json",
               "{\"extends\": \"forge\", \"relay\": {\"require_sni\": \"no\"}}");
    RunResult bad = run_toolcage(home, {"policy", "validate", home.dir / "bad.json"});
    CHECK(bad.exit_code != 0);
    const std::string all = bad.out + bad.err;
    INFO(all);
    CHECK(has(all, home.dir / "bad.json"));
    CHECK(has(all, "/relay/require_sni"));
    CHECK(has(all, "must be true or false"));
    write_file(home.dir / "off.json",
               "{\"extends\": \"forge\", \"relay\": {\"require_sni\": false}}");
    RunResult ok = run_toolcage(home, {"policy", "validate", home.dir / "off.json"});
    CHECK(ok.exit_code == 0);
    RunResult doctor = run_toolcage(home, {"doctor", "--policy", home.dir / "off.json", "--json"});
    CHECK(nlohmann::json::parse(doctor.out)["relay_require_sni"] == false);
    RunResult text = run_toolcage(home, {"doctor", "--policy", home.dir / "off.json"});
    CHECK(has(text.out, "relay.require_sni: false"));
    RunResult forge = run_toolcage(home, {"doctor", "--policy", "forge", "--json"});
    CHECK(nlohmann::json::parse(forge.out)["relay_require_sni"] == true);
}

TEST_CASE("policy validate and install say what is wrong with a file once, in words") {
    Home home;
    write_file(home.dir / "broken.json", "{\"name\": \"x\", \"extends\": \"default\",, }");
    RunResult broken = run_toolcage(home, {"policy", "validate", home.dir / "broken.json"});
    CHECK(broken.exit_code != 0);
    const std::string said = broken.out + broken.err;
    INFO(said);
    CHECK(
        has(said, home.dir / "broken.json" + ": not valid JSON at line 1 column 36: syntax error"));
    CHECK_FALSE(has(said, "json.exception"));
    CHECK(said.find("column 36") == said.rfind("column 36"));  // the position once
    // A directory is no policy: said so, by validate and install alike.
    std::filesystem::create_directories(home.dir / "adir");
    RunResult dir = run_toolcage(home, {"policy", "validate", home.dir / "adir"});
    CHECK(dir.exit_code != 0);
    CHECK(has(dir.out + dir.err, home.dir / "adir" + ": is a directory, not a policy file"));
    CHECK_FALSE(has(dir.out + dir.err, "internal error"));
    RunResult install = run_toolcage(home, {"policy", "install", home.dir / "adir"});
    CHECK(install.exit_code != 0);
    CHECK(has(install.err, home.dir / "adir" + ": is a directory, not a policy file"));
}

TEST_CASE("policy rules lists every rule the hook answers with, and the README names no other") {
    Home home;
    RunResult r = run_toolcage(home, {"policy", "rules", "--json"});
    REQUIRE(r.exit_code == 0);
    auto rules = nlohmann::json::parse(r.out);
    std::set<std::string> ids;
    for (const auto& rule : rules) ids.insert(rule["id"].get<std::string>());
    // The hook's own rules are there, marked fixed.
    for (const char* id : {"file.git-dir", "self.protected", "file.link-escape",
                           "hook.no-workspace", "hook.error"}) {
        INFO(id);
        CHECK(ids.count(id) == 1);
    }
    for (const auto& rule : rules) {
        if (rule["id"] == "self.protected" || rule["id"] == "input.too-complex")
            CHECK(rule["overridable"] == false);
        if (rule["id"] == "rm.home") CHECK(rule["overridable"] == true);
    }
    // Every rule id the README names in backquotes is one the binary knows.
    std::ifstream in(std::string(TOOLCAGE_SOURCE_DIR) + "/README.md");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string readme = ss.str();
    std::set<std::string> prefixes;
    for (const auto& id : ids) prefixes.insert(id.substr(0, id.find('.')));
    std::size_t named = 0;
    for (std::size_t at = readme.find('`'); at != std::string::npos;
         at = readme.find('`', at + 1)) {
        std::size_t end = readme.find('`', at + 1);
        if (end == std::string::npos) break;
        std::string word = readme.substr(at + 1, end - at - 1);
        at = end;
        std::size_t dot = word.find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == word.size()) continue;
        if (word.find_first_not_of("abcdefghijklmnopqrstuvwxyz-._") != std::string::npos) continue;
        if (!prefixes.count(word.substr(0, dot))) continue;  // a field (cage.write), a file (.git)
        if (word.find('.', dot + 1) != std::string::npos) continue;
        if (word.starts_with("relay.") || word.starts_with("cage.") || word.starts_with("hermes."))
            continue;
        // Node's API, cargo's keys and build script, Gradle's build file, Nix's shell file.
        if (word == "path.resolve" || word == "build.rustc-wrapper" || word == "build.rustc" ||
            word == "build.rs" || word == "build.gradle" || word == "shell.nix")
            continue;
        ++named;
        INFO(word);
        CHECK(ids.count(word) == 1);
    }
    CHECK(named > 20);

    // Every rule id the hook's own code answers with (a verdict written as {Decision::X, "id"})
    // is one `policy rules` lists, so a user can look it up and see whether it may be overridden.
    const std::regex verdict_id(R"re(Decision::[a-z]+,\s*"([a-z_-]+\.[a-z_.-]+)")re");
    std::size_t found = 0;
    for (const char* dir : {"/hook/decision", "/hook/adapters", "/hook/pipeline"})
        for (const auto& e :
             std::filesystem::directory_iterator(std::string(TOOLCAGE_SOURCE_DIR) + dir)) {
            if (e.path().extension() != ".cpp") continue;
            std::ifstream src(e.path());
            std::stringstream text;
            text << src.rdbuf();
            const std::string code = text.str();
            for (std::sregex_iterator m(code.begin(), code.end(), verdict_id), end; m != end; ++m) {
                ++found;
                INFO(e.path().string() << ": " << (*m)[1]);
                CHECK(ids.count((*m)[1]) == 1);
            }
        }
    CHECK(found > 20);
}

TEST_CASE(
    "an override of a rule of the hook itself is refused, and one that lets a protection through "
    "is warned about") {
    Home home;
    write_file(
        home.dir / "fixed.json",
        R"({"name": "fixed", "extends": "default", "overrides": {"self.protected": "allow"}})");
    RunResult fixed = run_toolcage(home, {"policy", "validate", home.dir / "fixed.json"});
    CHECK(fixed.exit_code != 0);
    CHECK(has(fixed.err,
              "/overrides/self.protected: a rule of the hook itself, which no policy overrides"));
    write_file(
        home.dir / "open.json",
        R"({"name": "open", "extends": "default", "overrides": {"rm.home": "allow", "secret.read": "cage", "build.run": "ask"}})");
    RunResult open = run_toolcage(home, {"policy", "validate", home.dir / "open.json"});
    CHECK(open.exit_code == 0);
    INFO(open.err);
    CHECK(has(open.err, "warning: /overrides/rm.home: \"allow\" switches off a protection"));
    CHECK(has(open.err, "would run without a cage (built in: deny"));
    CHECK(has(open.err, "warning: /overrides/secret.read: \"cage\" switches off a protection"));
    CHECK_FALSE(has(open.err, "build.run"));  // making a rule stricter is no warning
}

TEST_CASE(
    "a policy's own rule with examples: checked wherever the policy loads, listed and explained") {
    Home home;
    const std::string good = home.dir / "team.json";
    write_file(good, R"({"name": "team", "extends": "default",
        "rules": [{"program": "restic", "words": ["forget"], "verdict": "deny",
                   "reason": "restic forget deletes snapshots",
                   "match": ["restic forget --prune", "sudo restic -r /srv/b forget"],
                   "not_match": ["restic snapshots"]}]})");
    RunResult ok = run_toolcage(home, {"policy", "validate", good});
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    RunResult listed = run_toolcage(home, {"policy", "rules", "--policy", good, "--json"});
    REQUIRE(listed.exit_code == 0);
    auto rules = nlohmann::json::parse(listed.out);
    REQUIRE(!rules.empty());
    CHECK(rules[0]["id"] == "policy.restic.forget");
    CHECK(rules[0]["policy"] == "team");
    CHECK(rules[0]["match"][0] == "restic forget --prune");
    RunResult explained =
        run_toolcage(home, {"explain", "--policy", good, "--", "kopia-like forget --all"});
    CHECK(explained.exit_code == 0);
    RunResult restic =
        run_toolcage(home, {"explain", "--policy", good, "--", "restic forget --keep-last 1"});
    CHECK(has(restic.out, "policy.restic.forget"));
    CHECK(has(restic.out, "[the policy's own rule]"));

    const std::string bad = home.dir / "bad.json";
    write_file(bad, R"({"name": "bad", "extends": "default",
        "rules": [{"program": "restic", "words": ["forget"], "verdict": "deny", "reason": "r",
                   "match": ["restic prune"], "not_match": ["restic forget now"]}]})");
    RunResult refused = run_toolcage(home, {"policy", "validate", bad});
    CHECK(refused.exit_code != 0);
    CHECK(has(
        refused.err,
        bad + ": /rules/0/match/0: \"restic prune\": rule \"policy.restic.forget\" does not fire"));
    CHECK(has(refused.err, bad + ": /rules/0/not_match/0: \"restic forget now\""));
    RunResult check = run_toolcage(home, {"check", "--policy", bad, "--", "ls"});
    CHECK(check.exit_code == 2);
    CHECK(has(check.err, "/rules/0/match/0"));
    RunResult install = run_toolcage(home, {"policy", "install", bad});
    CHECK(install.exit_code != 0);
    CHECK(has(install.err, "nothing installed"));
}

TEST_CASE("policy lint says which layer holds which secret beside OpenShell's providers") {
    Home home;
    RunResult r = run_toolcage(
        home,
        std::vector<std::string>{"policy", "lint", kFixtures + "/inspect_github.json",
                                 "--providers", kFixtures + "/openshell_provider_github.yaml"} +
            kRegistry);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    const std::string policy = kFixtures + "/inspect_github.json";
    CHECK(has(
        r.out,
        policy +
            ": /relay/credentials/0/host: \"github.com\" gets a credential from two layers: "
            "toolcage's relay puts the secret of /nonexistent/toolcage-lint-fixture/github-token "
            "into "
            "each request as HTTP basic auth, and OpenShell injects its own at its proxy (provider "
            "\"github\" (GITHUB_TOKEN, GH_TOKEN)"));
    CHECK(has(r.out, "[relay.two-layer-credential]\n  fix: keep one layer"));
    CHECK(has(r.out, policy + ": /relay/inspect/0: \"github.com\" is inspected"));
    CHECK(has(r.out,
              "api.github.com: note: \"api.github.com:443\": OpenShell injects its credential at "
              "its proxy"));
    CHECK(has(r.out,
              "/relay/credentials/0/secret_file: note: "
              "/nonexistent/toolcage-lint-fixture/github-token is "
              "not there on this machine"));
}

TEST_CASE(
    "policy lint refuses a relay.credentials binding it cannot use, naming file, field and fix") {
    Home home;
    const std::string cases[][3] = {
        {R"({"host": "github.com", "secret_file": "/etc/toolcage-t/token", "as": "token", "placeholder_env": "T"})",
         "/relay/credentials/0/as", "\"basic:<user>\""},
        {R"({"host": "codeload.github.com", "secret_file": "/etc/toolcage-t/token", "placeholder_env": "T"})",
         "/relay/credentials/0/host", "add \"codeload.github.com\" to relay.inspect"},
        {R"({"host": "github.com", "secret_file": "token", "placeholder_env": "T"})",
         "/relay/credentials/0/secret_file", "must be an absolute path"},
    };
    for (const auto& [binding, field, fix] : cases) {
        write_file(home.dir / "p.json",
                   "{\"extends\": \"forge\", \"relay\": {\"inspect\": [\"github.com\"], "
                   "\"credentials\": [" +
                       binding + "]}}");
        RunResult r = run_toolcage(
            home, std::vector<std::string>{"policy", "lint", home.dir / "p.json"} + kRegistry);
        INFO(binding << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(has(r.err, home.dir / "p.json"));
        CHECK(has(r.err, field));
        CHECK(has(r.err, fix));
    }
}
