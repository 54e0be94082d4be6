// Policy application: overrides per rule id, extra rules, on_cage; and the rule catalogue.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::ExtraRule;
using toolcage::PathClass;
using toolcage::Policy;
using toolcage::classify::testing::classify;

TEST_CASE("policy: an override replaces the decision of the rule it names", "[classify][policy]") {
    Policy p;
    p.overrides["git.push"] = Decision::deny;
    CHECK(classify("git push", p).decision == Decision::deny);
    CHECK(classify("git push", p).rule == "git.push");
    CHECK(classify("git status", p).decision == Decision::allow);

    Policy lax;
    lax.overrides["rm.workspace-artifact"] = Decision::allow;
    CHECK(classify("rm -rf node_modules", lax).decision == Decision::allow);
    CHECK(classify("rm -rf ~", lax).decision == Decision::deny);

    Policy ask;
    ask.overrides["git.push-force"] = Decision::ask;
    CHECK(classify("git push --force", ask).decision == Decision::ask);

    Policy readonly_deny;
    readonly_deny.overrides["readonly.cat"] = Decision::deny;
    CHECK(classify("cat README.md", readonly_deny).decision == Decision::deny);
    CHECK(classify("ls", readonly_deny).decision == Decision::allow);
}

TEST_CASE("policy: an override lowering one hit does not hide another", "[classify][policy]") {
    Policy p;
    p.overrides["rm.home"] = Decision::cage;
    CHECK(classify("rm -rf ~", p).decision == Decision::cage);
    CHECK(classify("rm -rf ~ /etc", p).decision == Decision::deny);
}

TEST_CASE("policy: extra rules match program, argument globs and path classes", "[classify][policy]") {
    Policy p;
    ExtraRule r;
    r.id = "team.no-force-install";
    r.program = "npm";
    r.args = {"install", "--force"};
    r.decision = Decision::deny;
    r.reason = "forced installs are not allowed here";
    p.rules.push_back(r);
    toolcage::Verdict v = classify("npm install --force", p);
    CHECK(v.decision == Decision::deny);
    CHECK(v.rule == "team.no-force-install");
    CHECK(v.reason == "forced installs are not allowed here");
    CHECK(classify("npm install", p).decision == Decision::cage);
    CHECK(classify("sudo npm install --force", p).decision == Decision::deny);
    CHECK(classify("bash -c 'npm install --force'", p).decision == Decision::deny);

    Policy paths;
    ExtraRule t;
    t.id = "team.no-temp-writes";
    t.program = "touch";
    t.paths = {PathClass::temp};
    t.decision = Decision::ask;
    paths.rules.push_back(t);
    CHECK(classify("touch /tmp/x", paths).decision == Decision::ask);
    CHECK(classify("touch build/x", paths).decision == Decision::cage);

    Policy glob;
    ExtraRule g;
    g.id = "team.deploy";
    g.program = "kubectl";
    g.args = {"--context=prod*"};
    g.decision = Decision::deny;
    glob.rules.push_back(g);
    CHECK(classify("kubectl --context=prod-eu apply -f x.yaml", glob).decision == Decision::deny);
    CHECK(classify("kubectl --context=staging apply -f x.yaml", glob).decision == Decision::cage);
}

TEST_CASE("policy: on_cage turns caged commands into the policy's answer", "[classify][policy]") {
    Policy strict;
    strict.on_cage = Decision::deny;
    CHECK(classify("npm install", strict).decision == Decision::deny);
    CHECK(classify("ls", strict).decision == Decision::allow);
    CHECK(classify("rm -rf ~", strict).decision == Decision::deny);
    Policy asking;
    asking.on_cage = Decision::ask;
    CHECK(classify("make", asking).decision == Decision::ask);
}

TEST_CASE("rules: the catalogue lists every built-in id once, sorted", "[classify][policy]") {
    std::vector<std::string> ids = toolcage::classify::builtin_rule_ids();
    REQUIRE(!ids.empty());
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
    for (const char* id : {"rm.home", "git.reset-hard", "pipe.remote-to-shell", "readonly.ls", "unknown.program",
                           "parse.error", "parse.limit", "sudo.elevated", "write.secret", "secret.read",
                           "chmod.setuid", "chown.system", "readonly.git", "publish.package"}) {
        INFO(id);
        CHECK(toolcage::classify::is_builtin_rule(id));
    }
    CHECK_FALSE(toolcage::classify::is_builtin_rule("no.such-rule"));
    for (const std::string& id : ids) {
        INFO(id);
        CHECK(id.find('.') != std::string::npos);
        CHECK(std::none_of(id.begin(), id.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
    }
}

TEST_CASE("rules: every rule id written in the classifier's sources is in the catalogue", "[classify][policy]") {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(TOOLCAGE_SOURCE_DIR) / "hook" / "classify";
    REQUIRE(fs::is_directory(dir));
    std::regex hit_call(R"(hit\(\s*Decision::\w+,\s*"([a-z0-9.-]+)\")");
    int found = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".cpp") continue;
        std::ifstream in(entry.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (std::sregex_iterator it(text.begin(), text.end(), hit_call), end; it != end; ++it) {
            std::string id = (*it)[1];
            if (id.back() == '.') continue;  // a prefix completed at run time (readonly.<program>)
            INFO(entry.path().filename().string() << ": " << id);
            CHECK(toolcage::classify::is_builtin_rule(id));
            ++found;
        }
    }
    CHECK(found > 100);
}
