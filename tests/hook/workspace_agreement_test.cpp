// One decision of the workspace everywhere: for each directory of a table, `toolcage check`,
// `toolcage doctor`, the hook and `toolcage run` say the same (a workspace or none, and the same
// reason); a read-only command runs wherever the agent is, but inside configuration.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

struct Place {
    std::string name;
    std::string dir;
    std::string workspace;  // "" when none may be
    bool readable = true;   // the read-only cage may still run there
    bool approvable = false;  // without a workspace: a person may approve the directory as one
};

struct Tools {
    const HookFixture& f;
    std::string policy;

    RunResult tool(const std::vector<std::string>& args) const { return run_binary(TOOLCAGE_BIN, args, "", f.env); }
    json check(const std::string& command, const std::string& dir) const {
        RunResult r = tool({"check", "--json", "--policy", policy, "--cwd", dir, "--", command});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out);
    }
    json doctor(const std::string& dir) const {
        RunResult r = tool({"doctor", "--json", "--policy", policy, "--workdir", dir});
        INFO(r.out << r.err);
        json j = json::parse(r.out, nullptr, false);
        REQUIRE(j.is_object());
        return j;
    }
    json hook(const std::string& command, const std::string& dir) const {
        RunResult r = f.hook(claude_bash(command, dir), {"--policy", policy});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out)["hookSpecificOutput"];
    }
    RunResult run(const std::string& dir, bool read_only) const {
        std::vector<std::string> a = {"run", "--policy", policy, "--workdir", dir};
        if (read_only) a.push_back("--read-only");
        for (const char* w : {"--", "/bin/sh", "-c", "ls >/dev/null && pwd"}) a.push_back(w);
        return tool(a);
    }
};

}  // namespace

TEST_CASE("check, doctor, the hook and run decide the same workspace, with the same reason", "[workspace]") {
    HookFixture f;
    f.env["XDG_STATE_HOME"] = f.home + "/.local/state";
    const std::string root = f.home + "/work";
    for (const char* d : {"/notes", "/.config/x", "/.claude", "/work/proj/src", "/work/nest/sub/deep", "/work/nest/sub/.git",
                          "/.local/state"})
        make_dirs(f.home + d);
    TempDir own_tmp("/tmp");  // a directory of its own under /tmp
    const std::string policy = f.root / "rooted.json";
    write_file(policy, json{{"name", "rooted"}, {"extends", "default"}, {"workspace", {{"roots", {root}}}}}.dump());
    const Tools t{f, policy};
    const std::vector<Place> places = {
        {"the home", f.home, "", true},
        {"a plain directory of the home", f.home + "/notes", "", true, true},
        {"a dot-directory of the home", f.home + "/.config/x", "", false},
        {"an agent's configuration", f.home + "/.claude", "", false},
        {"a work root", root, "", true},
        {"a project of its own in a root", root + "/proj/src", root + "/proj", true},
        {"a nested project in a root", f.home + "/work/nest/sub/deep", f.home + "/work/nest/sub", true},
        {"a project", f.ws, f.ws, true},
        {"/tmp", "/tmp", "", true},
        {"a directory of its own under /tmp", own_tmp.path(), own_tmp.path(), true},
        {"/", "/", "", true},
    };
    for (const auto& p : places) {
        INFO(p.name << ": " << p.dir);
        // check: the workspace, and the verdict the hook answers.
        const json c = t.check("make", p.dir);
        CHECK(c["workspace"]["ok"] == !p.workspace.empty());
        CHECK(c["workspace"]["dir"] == p.workspace);
        const std::string reason = c["workspace"]["reason"];
        CHECK(reason.empty() == !p.workspace.empty());
        if (!p.workspace.empty()) {
            CHECK(c["verdict"] == "cage");
        } else {
            // Asked where a person may approve the directory as the workspace, else refused:
            // an approval could not run it in the cage.
            CHECK(c["verdict"] == (p.approvable ? "ask" : "deny"));
            CHECK(c["rule"] == "hook.no-workspace");
            CHECK(reason.starts_with(p.dir + " "));  // a sentence naming the directory
            CHECK(c["reason"].get<std::string>().find(reason) != std::string::npos);
            CHECK(c["workspace"].value("approvable", "") == (p.approvable ? p.dir : ""));
        }
        // doctor: the same decision, and `run` would refuse with its reason.
        const json d = t.doctor(p.dir);
        CHECK(d["workspace"]["dir"] == p.workspace);
        CHECK(d["workspace"]["reason"] == reason);
        if (p.workspace.empty()) {
            CHECK(d["would_run"] == false);
            CHECK(d["refusal"] == reason);
        }
        // the hook: the same verdict, reason and workspace.
        const json h = t.hook("make", p.dir);
        CHECK(h["permissionDecision"] == (!p.workspace.empty() ? "allow" : p.approvable ? "ask" : "deny"));
        const std::string hook_reason = h["permissionDecisionReason"];
        if (p.workspace.empty())
            CHECK(hook_reason.find(reason) != std::string::npos);
        // What runs is caged in the workspace, or, once approved, in the directory the question names.
        if (!p.workspace.empty() || p.approvable)
            CHECK(h["updatedInput"]["command"].get<std::string>().find(
                      "--workspace '" + (p.approvable ? p.dir : p.workspace) + "'") != std::string::npos);
        else
            CHECK_FALSE(h.contains("updatedInput"));
        // run: refuses with the same reason where there is none.
        const RunResult r = t.run(p.dir, false);
        INFO("run: " << r.exit_code << " " << r.err);
        if (p.workspace.empty()) {
            CHECK(r.exit_code != 0);
            CHECK(r.err.find(reason) != std::string::npos);
        } else {
            CHECK(r.err.find("cannot be a workspace") == std::string::npos);
        }
        // A read-only command: allowed and run where the agent is, but inside configuration.
        const json ls = t.check("ls", p.dir);
        CHECK(ls["verdict"] == (p.readable ? "allow" : "deny"));
        const json hl = t.hook("ls", p.dir);
        CHECK(hl["permissionDecision"] == (p.readable ? "allow" : "deny"));
        const RunResult rl = t.run(p.dir, true);
        INFO("run --read-only: " << rl.exit_code << " " << rl.out << rl.err);
        if (p.readable) {
            CHECK(rl.exit_code == 0);
            CHECK(rl.out == p.dir + "\n");
        } else {
            CHECK(rl.exit_code != 0);
            CHECK(rl.err.find(reason) != std::string::npos);
        }
    }
}

TEST_CASE("a work root that could not hold projects is left out, and a policy naming one is refused", "[workspace]") {
    HookFixture f;
    f.env["XDG_STATE_HOME"] = f.home + "/.local/state";
    make_dirs(f.home + "/.local/state");
    for (const char* bad : {"~", "~/.claude", "/", "/tmp", "/usr/local", "relative", "~/../x"}) {
        INFO(bad);
        const std::string policy = f.root / "bad.json";
        write_file(policy, json{{"name", "bad"}, {"extends", "default"}, {"workspace", {{"roots", {bad}}}}}.dump());
        RunResult r = run_binary(TOOLCAGE_BIN, {"check", "--policy", policy, "--cwd", f.ws, "--", "ls"}, "", f.env);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find("/workspace/roots/0") != std::string::npos);
        CHECK(r.err.find("bad.json") != std::string::npos);
    }
}

namespace {

RunResult git(const HookFixture& f, const std::vector<std::string>& args) {
    std::vector<std::string> a = {"-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main"};
    a.insert(a.end(), args.begin(), args.end());
    RunResult r = run_binary("/usr/bin/git", a, "", f.env);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
}

RunResult run_rewrite(const HookFixture& f, const json& decision) {
    REQUIRE(decision.contains("updatedInput"));
    return run_binary("/bin/bash", {"-c", decision["updatedInput"]["command"].get<std::string>()}, "", f.env);
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("in a work root a clone runs in the cage into its new directory; other writes there are refused",
          "[workspace]") {
    HookFixture f;
    f.env["XDG_STATE_HOME"] = f.home + "/.local/state";
    make_dirs(f.home + "/.local/state");
    // Outside the build tree, which holds toolcage's binaries and so is never writable by a step.
    TempDir place("/tmp");
    const std::string root = place / "work";
    make_dirs(root);
    // A local bare repository stands for the URL: no network.
    const std::string src = place / "src", bare = place / "repo.git";
    make_dirs(src);
    write_file(src + "/README", "hi\n");
    git(f, {"-C", src, "init", "-q"});
    git(f, {"-C", src, "add", "README"});
    git(f, {"-C", src, "commit", "-q", "-m", "one"});
    git(f, {"clone", "-q", "--bare", src, bare});
    const std::string policy = f.root / "rooted.json";
    write_file(policy, json{{"name", "rooted"},
                            {"extends", "default"},
                            {"workspace", {{"roots", {root}}}},
                            {"cage", {{"read", {bare}}}}}
                           .dump());
    auto hook = [&](const std::string& command) {
        RunResult r = f.hook(claude_bash(command, root), {"--policy", policy});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out)["hookSpecificOutput"];
    };

    const json clone = hook("git clone file://" + bare + " proj");
    INFO(clone.dump());
    CHECK(clone["permissionDecision"] == "allow");
    CHECK(clone["permissionDecisionReason"].get<std::string>().find("workspace.new-project") != std::string::npos);
    CHECK(clone["updatedInput"]["command"].get<std::string>().find("--new-project '" + root + "/proj'") !=
          std::string::npos);
    RunResult ran = run_rewrite(f, clone);
    INFO(ran.out << ran.err);
    CHECK(ran.exit_code == 0);
    CHECK(read_file(root + "/proj/README") == "hi\n");
    CHECK(entries(root) == std::vector<std::string>{"proj"});
    // The agent's usual next call moves into the project first: the step's workspace is the
    // project, chosen where the moves lead, and `check` says the same.
    for (const std::string& c : {std::string("cd proj && echo built > out.txt"), "cd " + root + "/proj && echo built > out.txt"}) {
        const json moved = hook(c);
        INFO(moved.dump());
        CHECK(moved["permissionDecision"] == "allow");
        CHECK(moved["updatedInput"]["command"].get<std::string>().find("--workspace '" + root + "/proj'") !=
              std::string::npos);
        // The agent's shell is where the call was: the rewrite's moves run there first.
        RunResult r = run_binary("/bin/bash", {"-c", "cd '" + root + "' && " + moved["updatedInput"]["command"].get<std::string>()}, "", f.env);
        INFO(r.out << r.err);
        CHECK(read_file(root + "/proj/out.txt") == "built\n");
        RunResult checked = run_binary(TOOLCAGE_BIN, {"check", "--json", "--policy", policy, "--cwd", root, "--", c}, "", f.env);
        CHECK(json::parse(checked.out)["verdict"] == "cage");
    }
    std::filesystem::remove(root + "/proj/out.txt");
    // Moves that lead back to the root, or out of the project, do not take its workspace along.
    CHECK(hook("cd proj/.. && echo x > y")["permissionDecision"] == "deny");
    const json out_of_it = hook("cd proj && echo x > ../y");
    if (out_of_it["permissionDecision"] == "allow")  // caged in the project: the cage refuses it
        run_binary("/bin/bash", {"-c", "cd '" + root + "' && " + out_of_it["updatedInput"]["command"].get<std::string>()}, "", f.env);
    else
        CHECK(out_of_it["permissionDecision"] == "deny");
    CHECK_FALSE(std::filesystem::exists(root + "/y"));
    // Without a directory the clone's is the URL's last part without .git.
    const json named = hook("git clone file://" + bare);
    CHECK(named["updatedInput"]["command"].get<std::string>().find("--new-project '" + root + "/repo'") !=
          std::string::npos);
    // mkdir makes an empty project; the next step in it has it as its workspace.
    const json made = hook("mkdir app");
    CHECK(made["permissionDecision"] == "allow");
    CHECK(run_rewrite(f, made).exit_code == 0);
    CHECK(entries(root + "/app").empty());
    // Any other write in the root itself is refused, with the root's reason and no rewrite: the
    // root is no workspace, so an approval could not run it in the cage.
    const json touch = hook("touch x");
    CHECK(touch["permissionDecision"] == "deny");
    CHECK_FALSE(touch.contains("updatedInput"));
    CHECK(touch["permissionDecisionReason"].get<std::string>().find(root + " is a work root of the policy") !=
          std::string::npos);
    // Reading in the root needs no question.
    CHECK(hook("ls")["permissionDecision"] == "allow");

    // run --new-project refuses a directory that holds something, a symlink, and a parent that
    // is no work root; the clone above is untouched.
    make_dirs(place / "elsewhere");
    REQUIRE(::symlink((place / "elsewhere").c_str(), (root + "/link").c_str()) == 0);
    for (const auto& [dir, why] : std::vector<std::pair<std::string, std::string>>{
             {root + "/proj", "is there already and not empty"},
             {root + "/link", "no plain directory"},
             {f.home + "/other", "is not a work root of the policy"},
             {root + "/.hidden", "plain directory name"}}) {
        INFO(dir);
        RunResult r = run_binary(TOOLCAGE_BIN, {"run", "--policy", policy, "--workdir", root, "--new-project", dir, "--",
                                                "/bin/sh", "-c", "echo x > f"},
                                 "", f.env);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find(why) != std::string::npos);
    }
    CHECK(entries(root + "/proj") == std::vector<std::string>{".git", "README"});
    CHECK(entries(place / "elsewhere").empty());
    CHECK_FALSE(std::filesystem::exists(f.home + "/other"));
}

TEST_CASE("a directory of the home is a workspace only once a person approves it, never by the model's rewrite",
          "[workspace]") {
    HookFixture f;
    // A home outside the build tree, which holds toolcage's binaries and so is never writable.
    TempDir place("/tmp");
    const std::string home = place / "home", notes = home + "/notes";
    f.env["HOME"] = home;
    make_dirs(notes);
    auto hook = [&](const std::string& command) {
        RunResult r = f.hook(claude_bash(command, notes), {"--policy", "default"});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        return json::parse(r.out)["hookSpecificOutput"];
    };
    // A script of the directory's own: asked, naming the directory; what a person approves
    // runs caged with it as the workspace.
    write_file(notes + "/tidy.sh", "echo kept > kept.txt; echo out > ../outside.txt\n");
    const std::string inner = "sh ./tidy.sh";
    const json asked = hook(inner);
    INFO(asked.dump());
    REQUIRE(asked["permissionDecision"] == "ask");
    CHECK(asked["permissionDecisionReason"].get<std::string>().find("runs in the cage with " + notes +
                                                                    " as its workspace") != std::string::npos);
    const std::string rewrite = asked["updatedInput"]["command"];
    CHECK(rewrite.find("--workspace '" + notes + "'") != std::string::npos);
    RunResult ran = run_rewrite(f, asked);
    INFO(ran.out << ran.err);
    CHECK(read_file(notes + "/kept.txt") == "kept\n");
    CHECK_FALSE(std::filesystem::exists(home + "/outside.txt"));  // the home stays closed

    // The same rewrite sent by the model itself is asked about again, not run unasked.
    const json forged = hook(rewrite);
    INFO(forged.dump());
    CHECK(forged["permissionDecision"] == "ask");
    CHECK(forged["permissionDecisionReason"].get<std::string>().find("hook.no-workspace") != std::string::npos);
    CHECK(forged["updatedInput"]["command"] == rewrite);
    // A destructive inner command stays refused, whatever workspace the rewrite names.
    std::string bad = rewrite;
    REQUIRE(bad.find(inner) != std::string::npos);
    bad.replace(bad.find(inner), inner.size(), "rm -rf ~");
    CHECK(hook(bad)["permissionDecision"] == "deny");
}
