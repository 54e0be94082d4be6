// The real `toolcage run` (the built binary, a test policy file), as root and as nobody: a step
// that plants what git, the agent or an editor would later run outside the cage finds it undone
// afterwards, reported on stderr and in the decision log, and the run exits 3; git run outside
// the cage afterwards runs nothing the step planted. Each planting is first shown to work
// without toolcage (the marker appears), so that a missing marker proves something.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cage/integrity/workspace_guard.h"
#include "support.h"

using namespace integrity;
using nlohmann::json;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

ino_t inode(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

struct Tamper {
    const char* name;
    std::string (*script)(const Workspace&);
    const char* report;  // the stderr line after "toolcage run: tamper: "
};

std::string plant_fsmonitor(const Workspace& w) {
    return "printf '" + w.evil_script("fsmonitor") + "' > evil.sh && chmod +x evil.sh && "
           "git config core.fsmonitor \"$PWD/evil.sh\"";
}
std::string plant_hook(const Workspace& w) {
    return "printf '" + w.evil_script("hook") + "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit";
}
std::string plant_claude(const Workspace&) {
    return "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json";
}
std::string plant_mcp(const Workspace&) { return "echo '{\"mcpServers\": {}}' > .mcp.json"; }
std::string plant_gitmodules(const Workspace&) {
    return "printf '[submodule \"x\"]\\n\\tpath = x\\n\\turl = https://evil.example/x.git\\n' >> .gitmodules";
}
std::string plant_new_git(const Workspace& w) {
    return "printf '" + w.evil_script("newgit") + "' > evil.sh && chmod +x evil.sh && "
           "mv .git .git-old && git init -q . && git config core.fsmonitor \"$PWD/evil.sh\"";
}
std::string plant_config_symlink(const Workspace& w) {
    return "printf '" + w.evil_script("symlink") + "' > evil.sh && chmod +x evil.sh && "
           "printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' \"$PWD\" > cfg && rm .git/config && "
           "ln -s ../cfg .git/config";
}

const Tamper kTampers[] = {
    {"core.fsmonitor written into .git/config", plant_fsmonitor, ".git/config changed; restored"},
    {"a pre-commit hook added", plant_hook, ".git/hooks/pre-commit created; removed"},
    {".claude/settings.json created", plant_claude, ".claude created; removed"},
    {".mcp.json created", plant_mcp, ".mcp.json created; removed"},
    {".gitmodules appended to", plant_gitmodules, ".gitmodules changed; restored"},
    {".git renamed and a new one made", plant_new_git, ".git renamed to .git-old; moved back"},
    {".git/config replaced by a symlink", plant_config_symlink, ".git/config replaced by a symlink; restored"},
};

// The uncaged git commands an agent runs afterwards; none may run what was planted.
void git_afterwards_runs_nothing(const Workspace& w) {
    Result st = w.git({"status", "--short"});
    INFO(st.out);
    CHECK(st.status == 0);
    Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
    INFO(ci.out);
    CHECK(ci.status == 0);
    for (const char* m : {"fsmonitor", "hook", "newgit", "symlink"}) {
        INFO("marker " << m);
        CHECK_FALSE(present(w.marker(m)));
    }
}

std::vector<json> tamper_events(const Workspace& w) {
    std::vector<json> out;
    for (const auto& line : w.log_lines()) {
        json j = json::parse(line, nullptr, false);
        if (j.is_object() && j.value("event", "") == "tamper") out.push_back(j);
    }
    return out;
}

}  // namespace

TEST_CASE("plantings run outside the cage when nothing undoes them", "[integrity][control]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    {
        Workspace w(who);
        REQUIRE(w.shell(plant_fsmonitor(w)).status == 0);
        w.git({"status"});
        CHECK(present(w.marker("fsmonitor")));
    }
    {
        Workspace w(who);
        REQUIRE(w.shell(plant_hook(w)).status == 0);
        w.git({"commit", "-q", "--allow-empty", "-m", "x"});
        CHECK(present(w.marker("hook")));
    }
    {
        Workspace w(who);
        REQUIRE(w.shell(plant_new_git(w)).status == 0);
        w.git({"status"});
        CHECK(present(w.marker("newgit")));
    }
    {
        Workspace w(who);
        REQUIRE(w.shell(plant_config_symlink(w)).status == 0);
        w.git({"status"});
        CHECK(present(w.marker("symlink")));
    }
}

TEST_CASE("each planting by a caged step is undone, reported and fails the run", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    const Tamper& t = GENERATE(from_range(std::begin(kTampers), std::end(kTampers)));
    INFO(name_of(who) << ": " << t.name);
    Workspace w(who);
    const std::string readme = w.read("README");
    const std::string gitmodules = w.read(".gitmodules");
    const std::string config = w.read(".git/config");
    const ino_t git_ino = inode(w.ws / ".git");

    Result r = w.caged(t.script(w) + " && echo planted && exit 0", w.snapshot_policy());
    INFO(r.out);
    CHECK(r.out.find("planted") != std::string::npos);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find(std::string("toolcage run: tamper: ") + t.report + "\n") != std::string::npos);
    CHECK(r.out.find("the step's own was 0") != std::string::npos);

    CHECK(w.read(".git/config") == config);
    CHECK(w.read(".gitmodules") == gitmodules);
    CHECK(w.read("README") == readme);
    CHECK(inode(w.ws / ".git") == git_ino);
    CHECK_FALSE(present(w.ws / ".git-old"));
    CHECK_FALSE(present(w.ws / ".claude"));
    CHECK_FALSE(present(w.ws / ".mcp.json"));
    CHECK_FALSE(present(w.ws / ".git/hooks/pre-commit"));
    struct stat st {};
    REQUIRE(::lstat((w.ws / ".git/config").c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    // The restore replaced the symlink; it never wrote through it.
    if (present(w.ws / "cfg")) CHECK(w.read("cfg").find("fsmonitor") != std::string::npos);

    auto events = tamper_events(w);
    REQUIRE_FALSE(events.empty());
    bool logged = false;
    for (const auto& e : events) {
        CHECK(e["rule"] == "cage.tamper");
        CHECK(e["workspace"] == w.ws.string());
        CHECK(e["profile"] == "integrity-test");
        if (e["reason"] == t.report) logged = true;
    }
    CHECK(logged);
    git_afterwards_runs_nothing(w);
}

TEST_CASE("one step planting everything: all undone, each reported once", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    const std::string config = w.read(".git/config");
    const std::string gitmodules = w.read(".gitmodules");
    const ino_t git_ino = inode(w.ws / ".git");
    std::string script = plant_fsmonitor(w) + " && " + plant_hook(w) + " && " + plant_claude(w) + " && " +
                         plant_mcp(w) + " && " + plant_gitmodules(w) + " && " + plant_new_git(w) +
                         " && echo ordinary > notes.txt; exit 9";
    Result r = w.caged(script, w.snapshot_policy());
    INFO(r.out);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("the step's own was 9") != std::string::npos);
    for (const auto& t : kTampers) {
        if (std::string(t.name).find("symlink") != std::string::npos) continue;
        INFO(t.report);
        CHECK(r.out.find(std::string("toolcage run: tamper: ") + t.report + "\n") != std::string::npos);
    }
    CHECK(r.out.find("toolcage run: tamper: .git replaced by another directory; removed the new one") !=
          std::string::npos);
    CHECK(w.read(".git/config") == config);
    CHECK(w.read(".gitmodules") == gitmodules);
    CHECK(inode(w.ws / ".git") == git_ino);
    CHECK(w.read("notes.txt") == "ordinary\n");  // the step's ordinary work stays
    Result log = w.git({"log", "--format=%s"});
    CHECK(log.out == "first\n");
    // One log line per event, each also printed.
    auto events = tamper_events(w);
    CHECK(events.size() == 7);
    for (const auto& e : events)
        CHECK(r.out.find("toolcage run: tamper: " + e["reason"].get<std::string>()) != std::string::npos);
    git_afterwards_runs_nothing(w);
}

TEST_CASE("a step that plants nothing keeps its work and its exit status", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    Result r = w.caged(
        "echo a > a.txt && mkdir -p src && echo b > src/b.txt && echo more >> README && "
        "git add a.txt && git -c user.name=t -c user.email=t@example.org commit -q -m second && git config user.name someone && "
        "rm .gitmodules; git checkout -q .gitmodules; exit 5",
        w.policy());
    INFO(r.out);
    CHECK(r.status == 5);
    CHECK(r.out.find("tamper") == std::string::npos);
    CHECK(w.read("a.txt") == "a\n");
    CHECK(w.read("src/b.txt") == "b\n");
    CHECK(w.read("README") == "hello\nmore\n");
    // A config change of settings git only stores stays (an identity).
    CHECK(w.git({"config", "user.name"}).out == "someone\n");
    CHECK(w.git({"log", "--format=%s"}).out == "second\nfirst\n");
    CHECK(tamper_events(w).empty());
}

TEST_CASE("git init in a caged step keeps the new repository", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    fs::remove_all(w.ws / ".git");
    Result r = w.caged("git init -q && git add README && git -c user.name=t -c user.email=t@example.org commit -q -m fresh && git log --format=%s", w.policy());
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(r.out.find("fresh") != std::string::npos);
    CHECK(present(w.ws / ".git/config"));
    CHECK(present(w.ws / ".git/hooks"));
    CHECK(tamper_events(w).empty());
}

TEST_CASE("a new .git with a planted config is not kept", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    fs::remove_all(w.ws / ".git");
    Result r = w.caged("printf '" + w.evil_script("newgit") + "' > evil.sh && chmod +x evil.sh && " +
                           "git init -q && git config core.fsmonitor \"$PWD/evil.sh\"",
                       w.policy());
    INFO(r.out);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("toolcage run: tamper: .git/config created; removed") != std::string::npos);
    w.git({"status"});
    CHECK_FALSE(present(w.marker("newgit")));
}

TEST_CASE("a policy without protected_paths still protects the built-in list", "[integrity][cage]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    Result r = w.caged(plant_mcp(w) + " && " + plant_fsmonitor(w), w.policy(true));
    INFO(r.out);
    CHECK(r.status == toolcage::cage::kTamperExit);
    CHECK(r.out.find("toolcage run: tamper: .mcp.json created; removed") != std::string::npos);
    CHECK(r.out.find("toolcage run: tamper: .git/config changed; restored") != std::string::npos);
    CHECK_FALSE(present(w.ws / ".mcp.json"));
}

TEST_CASE("cage.protect \"landlock\" refuses in-place writes to protected paths", "[integrity][landlock]") {
    As who = GENERATE(As::root, As::nobody);
    INFO(name_of(who));
    Workspace w(who);
    const std::string config = w.read(".git/config");
    Result r = w.caged(
        "echo '[core] pager = x' >> .git/config && echo CONFIG-WRITTEN; "
        "echo more >> README && echo README-WRITTEN; "
        "echo new > brand-new.txt && echo NEW-WRITTEN; exit 0",
        w.policy(false, "landlock"));
    INFO(r.out);
    CHECK(r.out.find("CONFIG-WRITTEN") == std::string::npos);
    CHECK(w.read(".git/config") == config);
    CHECK(r.out.find("README-WRITTEN") != std::string::npos);  // existing entries stay writable
    // The cost: a new file directly in the workspace root is created but cannot be written.
    CHECK(r.out.find("NEW-WRITTEN") == std::string::npos);
    CHECK(r.status == 0);
}
