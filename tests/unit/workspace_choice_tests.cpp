// A workspace is never a home: the choice refuses /, the home and its ancestors and trees that
// hold toolcage's or an agent's files, and a .git above them never widens it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/workspace_choice.h"
#include "temp_dir.h"

namespace ws = toolcage::workspace;
namespace fs = std::filesystem;

namespace {

ws::Guarded guarded_for(const fs::path& home, const fs::path& bin) {
    ws::Guarded g;
    g.homes = {home.string()};
    g.keep_out = {{bin.string(), "toolcage's own binaries", false},
                  {(home / ".claude").string(), "Claude Code's configuration"},
                  {(home / ".hermes").string(), "Hermes' configuration"}};
    return g;
}

}  // namespace

TEST_CASE("the root, the home, its ancestors and trees holding toolcage are refused", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home/u";
    fs::path bin = t.path / "opt/tc/bin";
    fs::create_directories(home / "proj");
    fs::create_directories(bin);
    auto g = guarded_for(home, bin);
    CHECK(ws::refusal("/", g) == "is the root directory");
    CHECK(ws::refusal(home.string(), g) == "is the home directory");
    CHECK(ws::refusal(home.string() + "/", g) == "is the home directory");
    CHECK(ws::refusal((t.path / "home").string(), g).find("holds the home directory") == 0);
    CHECK(ws::refusal(t.path.string(), g).find("holds the home directory") == 0);
    CHECK(ws::refusal((t.path / "opt").string(), g).find("toolcage's own binaries") != std::string::npos);
    CHECK(!ws::refusal((home / ".claude").string(), g).empty());
    CHECK(ws::refusal((home / "proj").string(), g).empty());
    CHECK(ws::refusal("relative", g) == "is not an absolute path");
    // Directories every user shares: a step would write what others run or read.
    for (const char* shared : {"/tmp", "/tmp/", "/var/tmp", "/dev/shm", "/usr", "/etc", "/home"}) {
        INFO(shared);
        CHECK(ws::refusal(shared, g).find("shared with every user") != std::string::npos);
    }
    CHECK(ws::refusal((t.path / "home").string(), g).find("holds the home directory") == 0);  // below /tmp: its own
}

TEST_CASE("a dotfiles .git in the home does not widen the workspace; the project below it is chosen",
          "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::create_directories(home / ".git");
    fs::create_directories(home / "proj/src/deep");
    fs::create_directories(home / "plain/sub");
    std::ofstream(home / "proj/package.json") << "{}";
    auto g = guarded_for(home, t.path / "bin");
    CHECK(ws::choose((home / "proj/src/deep").string(), g) == (home / "proj").string());
    CHECK(ws::choose((home / "proj").string(), g) == (home / "proj").string());
    // No marker between the cwd and the home: no workspace (the agent named the directory).
    CHECK(ws::choose((home / "plain/sub").string(), g).empty());
    // The home itself, or above it: no workspace at all.
    CHECK(ws::choose(home.string(), g).empty());
    CHECK(ws::choose(t.path.string(), g).empty());
    CHECK(ws::choose("/", g).empty());
}

TEST_CASE("below the home a repository's top is the workspace, as git finds it", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::create_directories(home / "src/repo/.git");
    fs::create_directories(home / "src/repo/a/b");
    std::ofstream(home / "src/repo/a/Makefile") << "all:\n";
    auto g = guarded_for(home, t.path / "bin");
    CHECK(ws::choose((home / "src/repo/a/b").string(), g) == (home / "src/repo").string());
    // A repository that holds toolcage's binaries is no workspace: the walk stops below it, and
    // with its .git beyond the stop, the nearest project marker (a/Makefile) is the workspace.
    auto g2 = guarded_for(home, home / "src/repo/build");
    fs::create_directories(home / "src/repo/build");
    CHECK(ws::choose((home / "src/repo/a/b").string(), g2) == (home / "src/repo/a").string());
}

TEST_CASE("outside any home the workspace is the git top or the directory itself", "[workspace]") {
    toolcage::test::TempDir t;
    fs::create_directories(t.path / "w/.git");
    fs::create_directories(t.path / "w/x");
    fs::create_directories(t.path / "plain");
    auto g = guarded_for(t.path / "nohome", t.path / "bin");
    CHECK(ws::choose((t.path / "w/x").string(), g) == (t.path / "w").string());
    CHECK(ws::choose((t.path / "plain").string(), g) == (t.path / "plain").string());
    // A worktree's .git is a file: its directory is the workspace, not the repository above it.
    fs::create_directories(t.path / "w/x/tree");
    std::ofstream(t.path / "w/x/tree/.git") << "gitdir: elsewhere\n";
    CHECK(ws::choose((t.path / "w/x/tree").string(), g) == (t.path / "w/x/tree").string());
}

TEST_CASE("the process's own guard names the home and the agents' configuration", "[workspace]") {
    auto g = ws::guarded_from_process();
    const char* home = std::getenv("HOME");
    if (home && home[0] == '/') {
        CHECK(!ws::refusal(home, g).empty());
        bool claude = false;
        for (const auto& k : g.keep_out) claude = claude || k.path == fs::path(std::string(home) + "/.claude").lexically_normal().string();
        CHECK(claude);
    }
    CHECK(ws::refusal("/", g) == "is the root directory");
}

TEST_CASE("a directory the agent names in the home is a workspace only inside a project", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    for (const char* d : {".ssh", ".config/gcloud", ".cargo/bin", ".npm", ".hermes/plugins", ".local/lib/p",
                          "Downloads", "src/app/lib", "src/.hidden"})
        fs::create_directories(home / d);
    fs::create_directories(home / "src/app/.git");
    std::ofstream(home / ".cargo/Cargo.toml") << "";     // a marker in a dot-directory changes nothing
    std::ofstream(home / ".config/gcloud/package.json") << "{}";
    auto g = guarded_for(home, t.path / "bin");
    for (const char* d : {".ssh", ".config", ".config/gcloud", ".cargo", ".cargo/bin", ".npm", ".hermes/plugins",
                          ".local/lib/p"}) {
        INFO(d);
        CHECK(ws::choose((home / d).string(), g).empty());
        CHECK(ws::refusal((home / d).string(), g).find("dot-directory of the home") != std::string::npos);
    }
    CHECK(ws::choose((home / "Downloads").string(), g).empty());
    // The everyday case beside it: a directory inside a project in the home.
    CHECK(ws::choose((home / "src/app/lib").string(), g) == (home / "src/app").string());
    CHECK(ws::choose((home / "src/app").string(), g) == (home / "src/app").string());
    // A dot-directory of the project (not of the home) is part of the project.
    fs::create_directories(home / "src/app/.github/workflows");
    CHECK(ws::choose((home / "src/app/.github/workflows").string(), g) == (home / "src/app").string());
}

TEST_CASE("nothing inside an agent's configuration or toolcage's files is a workspace", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::path hermes_home = t.path / "srv/hermes";
    fs::create_directories(home);
    fs::create_directories(hermes_home / "plugins/evil/.git");
    auto g = guarded_for(home, t.path / "bin");
    g.keep_out.push_back({hermes_home.string(), "Hermes' home ($HERMES_HOME)"});
    CHECK(ws::refusal((hermes_home / "plugins/evil").string(), g).find("is inside " + hermes_home.string()) == 0);
    CHECK(ws::choose((hermes_home / "plugins/evil").string(), g).empty());
    CHECK(ws::choose((hermes_home / "plugins").string(), g).empty());
    // Outside the home and those trees a plain directory is still its own workspace.
    fs::create_directories(t.path / "srv/build");
    CHECK(ws::choose((t.path / "srv/build").string(), g) == (t.path / "srv/build").string());
}

TEST_CASE("a directory is judged by its real name too: a link to a home's dot-directory is no workspace",
          "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::create_directories(home / ".ssh");
    fs::create_directories(home / "src/app/.git");
    fs::create_directories(t.path / "work/real/.git");
    fs::create_directory_symlink(home / ".ssh", home / "src/app/keys");  // inside a project, by name
    fs::create_directory_symlink(home / ".ssh", t.path / "work/proj");    // outside any home, by name
    fs::create_directory_symlink(t.path / "work/real", t.path / "work/alias");
    auto g = guarded_for(home, t.path / "bin");
    // By name each would be a workspace (the project's top, a directory of its own).
    CHECK(ws::refusal((t.path / "work/proj").string(), g).empty());
    // By its real name it is the home's .ssh: refused, and no directory above it is chosen.
    CHECK(ws::choose((home / "src/app/keys").string(), g).empty());
    CHECK(ws::choose((t.path / "work/proj").string(), g).empty());
    // A link to a directory that may be one is followed as usual; the everyday case beside it.
    CHECK(ws::choose((t.path / "work/alias").string(), g) == (t.path / "work/alias").string());
    CHECK(ws::choose((home / "src/app").string(), g) == (home / "src/app").string());
}

TEST_CASE("a work root holds projects: each directory below it is one, the root itself none", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::path root = home / "work";
    for (const char* d : {"work/proj/src/deep", "work/nest/sub/.git", "work/nest/sub/a", "notes", "work/.hidden/x"})
        fs::create_directories(home / d);
    auto g = ws::with_roots(guarded_for(home, t.path / "bin"), {root.string()});
    REQUIRE(g.roots == std::vector<std::string>{root.string()});
    const ws::Choice at_root = ws::decide(root.string(), g);
    CHECK_FALSE(at_root.ok());
    CHECK(at_root.root == root.string());
    CHECK(at_root.reason.starts_with(root.string() + " is a work root of the policy"));
    // A project of its own (no marker needed), a nested repository, as the walk finds them.
    CHECK(ws::decide((root / "proj/src/deep").string(), g).dir == (root / "proj").string());
    CHECK(ws::decide((root / "proj").string(), g).dir == (root / "proj").string());
    CHECK(ws::decide((root / "nest/sub/a").string(), g).dir == (root / "nest/sub").string());
    CHECK(ws::refusal_sentence(root.string(), g) == at_root.reason);  // given as --workspace: refused too
    // Outside the root, in the home, the reason names the directory and the root that would fix it.
    const ws::Choice notes = ws::decide((home / "notes").string(), g);
    CHECK(notes.reason == (home / "notes").string() +
                              " is a directory of the home outside any project and outside the policy's work roots, "
                              "so a step that writes has no workspace there; run it in a project (a directory with "
                              ".git or a project file such as package.json) or add a work root to the policy: "
                              "\"workspace\": {\"roots\": [\"~/notes\"]}");
    CHECK(notes.readable);
    CHECK_FALSE(ws::decide((home / ".ssh").string(), g).readable);
}

TEST_CASE("a work root that could not be a workspace's parent is left out, with why", "[workspace]") {
    toolcage::test::TempDir t;
    fs::path home = t.path / "home";
    fs::create_directories(home / ".claude/projects");
    fs::create_directories(home / "work");
    auto g = guarded_for(home, t.path / "bin");
    const std::vector<std::string> bad = {home.string(), (home / ".claude/projects").string(), "/", "/tmp", "rel"};
    CHECK(ws::with_roots(g, bad).roots.empty());
    CHECK(ws::root_problems(g, bad).size() == bad.size());
    CHECK(ws::root_problems(g, {(home / "work").string()}).empty());
    // Every refusal is a sentence with the directory, the reason and the fix.
    const ws::Choice tmp = ws::decide("/tmp", g);
    CHECK(tmp.reason == "/tmp is shared with every user and program on this machine, so it cannot be a "
                        "workspace (a step that writes may write all of its workspace); make a directory of its own "
                        "under it (mkdir /tmp/NAME) and run it there");
}
