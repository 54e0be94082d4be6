// Path classes (lexical) and the context built from a real directory tree.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "classify_helpers.h"

using toolcage::PathClass;
using toolcage::classify::classify_path;
using toolcage::Decision;
using toolcage::Policy;
using toolcage::Verdict;
using toolcage::classify::classify_command;
using toolcage::classify::Context;
using toolcage::classify::make_context;
using toolcage::classify::testing::test_context;

TEST_CASE("classify_path: the classes", "[classify][paths]") {
    Context c = test_context();
    CHECK(classify_path("src/main.c", c) == PathClass::workspace);
    CHECK(classify_path("./build", c) == PathClass::workspace);
    CHECK(classify_path("/home/agent/project/x", c) == PathClass::workspace);
    CHECK(classify_path(".", c) == PathClass::workspace_root);
    CHECK(classify_path("./", c) == PathClass::workspace_root);
    CHECK(classify_path("src/..", c) == PathClass::workspace_root);
    CHECK(classify_path("*", c) == PathClass::workspace_root);
    CHECK(classify_path(".git", c) == PathClass::git_dir);
    CHECK(classify_path(".git/config", c) == PathClass::git_dir);
    CHECK(classify_path("/tmp/x", c) == PathClass::temp);
    CHECK(classify_path("/var/tmp/x", c) == PathClass::temp);
    CHECK(classify_path("~", c) == PathClass::home);
    CHECK(classify_path("~/x", c) == PathClass::home);
    CHECK(classify_path("..", c) == PathClass::home);
    CHECK(classify_path("../other", c) == PathClass::home);
    CHECK(classify_path("../..", c) == PathClass::system);
    CHECK(classify_path("/etc/passwd", c) == PathClass::system);
    CHECK(classify_path("//etc", c) == PathClass::system);
    CHECK(classify_path("/tmp", c) == PathClass::system);
    CHECK(classify_path("/", c) == PathClass::root);
    CHECK(classify_path("/..", c) == PathClass::root);
    CHECK(classify_path("/*", c) == PathClass::root);
    CHECK(classify_path("", c) == PathClass::unknown);
}

TEST_CASE("classify_path: a workspace under /tmp stays the workspace", "[classify][paths]") {
    Context c;
    c.cwd = "/tmp/ws/sub";
    c.workspace = "/tmp/ws";
    c.home = "/home/agent";
    c.tmp = "/tmp";
    CHECK(classify_path(".", c) == PathClass::workspace);
    CHECK(classify_path("..", c) == PathClass::workspace_root);
    CHECK(classify_path("../..", c) == PathClass::system);
    CHECK(classify_path("/tmp/other", c) == PathClass::temp);
}

TEST_CASE("classify_path: a TMPDIR that is home or a parent of it is not temp", "[classify][paths]") {
    Context c = test_context();
    c.tmp = "/home/agent";
    CHECK(classify_path("/home/agent/x", c) == PathClass::home);
    c.tmp = "/";
    CHECK(classify_path("/etc", c) == PathClass::system);
    c.tmp = "/scratch";
    CHECK(classify_path("/scratch/x", c) == PathClass::temp);
}

TEST_CASE("the user database's home is a home although $HOME points elsewhere", "[classify][paths]") {
    // A container's HOME=/tmp/agent: `~` goes there, and the real home keeps its protection.
    Context c = test_context();
    c.home = "/tmp/agent";
    c.real_home = "/home/agent";
    CHECK(classify_path("/home/agent/.bashrc", c) == PathClass::home);
    CHECK(classify_path("~/x", c) == PathClass::home);
    CHECK(classify_path("/home", c) == PathClass::system);  // holds a home: never scratch
    for (const char* cmd : {"cat /home/agent/.ssh/id_ed25519", "cat ~/.ssh/id_ed25519"}) {
        Verdict v = classify_command(cmd, c, Policy{});
        INFO(cmd << ": " << v.rule);
        CHECK(v.decision == Decision::deny);
        CHECK(v.rule == "secret.read");
    }
    CHECK(classify_command("rm -rf /home/agent", c, Policy{}).decision == Decision::deny);
    // A TMPDIR inside the real home is not scratch.
    c.tmp = "/home/agent/tmp";
    CHECK(classify_path("/home/agent/tmp/x", c) == PathClass::home);
}

TEST_CASE("make_context finds the git top level above the working directory", "[classify][paths]") {
    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/classify-ctx-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    fs::path root = tmpl;
    fs::create_directories(root / ".git");
    fs::create_directories(root / "a" / "b");
    Context c = make_context((root / "a" / "b").string());
    CHECK(c.cwd == (root / "a" / "b").string());
    CHECK(c.workspace == root.string());
    CHECK(!c.home.empty());
    CHECK(!c.tmp.empty());
    CHECK(classify_path("../..", c) == PathClass::workspace_root);
    // A worktree's .git is a file.
    fs::path wt = root / "wt";
    fs::create_directories(wt / "x");
    std::ofstream(wt / ".git") << "gitdir: ../.git/worktrees/wt\n";
    CHECK(make_context((wt / "x").string()).workspace == wt.string());
    // Without .git anywhere above, the workspace is the working directory itself.
    char other[] = "/tmp/classify-nogit-XXXXXX";
    REQUIRE(::mkdtemp(other) != nullptr);
    CHECK(make_context(other).workspace == std::string(other));
    fs::remove_all(root);
    fs::remove_all(other);
}

// Wherever the home and the workspace lie (CI runners and containers put HOME under /tmp), the
// home, its ancestors, the workspace root, its .git and its ancestors are never "temp".
TEST_CASE("classify: the home and the workspace win over temp, wherever they lie", "[classify][paths]") {
    using toolcage::Decision;
    using toolcage::Verdict;
    using toolcage::classify::classify_command;
    const std::string homes[] = {"/home/x", "/tmp/x", "/var/tmp/x", "/tmp"};
    const std::string workspaces[] = {"/home/x/src/proj", "/tmp/ws/proj", "/var/tmp/ws/proj",
                                      "/srv/ws/proj"};
    for (const auto& home : homes) {
        for (const auto& ws : workspaces) {
            if (home == "/tmp" && ws == "/tmp/ws/proj") continue;  // the workspace would be in it
            Context c;
            c.cwd = ws;
            c.workspace = ws;
            c.home = home;
            c.tmp = "/tmp";
            INFO("HOME=" << home << " workspace=" << ws);
            bool ws_in_home = ws.starts_with(home + "/");
            CHECK(classify_path("~", c) == PathClass::home);
            CHECK(classify_path(home, c) == PathClass::home);
            CHECK(classify_path("~/.bashrc", c) == PathClass::home);
            CHECK(classify_path(".", c) == PathClass::workspace_root);
            CHECK(classify_path(".git", c) == PathClass::git_dir);
            CHECK(classify_path(".git/config", c) == PathClass::git_dir);
            PathClass parent = classify_path("..", c);
            CHECK(parent != PathClass::temp);
            CHECK(parent == (ws_in_home ? PathClass::home : PathClass::system));
            CHECK(classify_path("../..", c) != PathClass::temp);
            CHECK(classify_path(std::filesystem::path(home).parent_path().string(), c) !=
                  PathClass::temp);

            auto verdict = [&](const std::string& cmd) { return classify_command(cmd, c, {}); };
            for (const char* cmd : {"rm -rf ~", "rm -rf \"$HOME\"", "rm -rf $HOME/", "rm -rf ~/*",
                                    "rm -rf ..", "rm -rf ../*", "rm -rf .git", "rm -rf ~/..",
                                    "echo x > ~/.bashrc"}) {
                INFO(cmd);
                Verdict v = verdict(cmd);
                INFO("got " << to_string(v.decision) << " " << v.rule);
                CHECK((v.decision == Decision::deny || v.decision == Decision::ask));
            }
            // Scratch under the temp directory is still scratch.
            CHECK(verdict("rm -rf /var/tmp/build-cache-1").decision == Decision::cage);
            CHECK(verdict("rm -rf ./node_modules").decision == Decision::cage);
        }
    }
}
