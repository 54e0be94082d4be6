// The hook's side: read-only git that would run what the repository's config names is caged
// (hook/decision/git_guard.h), through the built `toolcage hook` with Hermes and Claude Code
// payloads too; and file tools writing protected workspace paths ask a person.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/git_config.h"
#include "hook/decision/git_guard.h"
#include "support.h"
#include "tests/hook/fixture.h"

using toolcage::Decision;
using toolcage::gitconfig::first_code_key;
using toolcage::hook::check_git_config;
using toolcage::hook::find_git_repo;
using nlohmann::json;

TEST_CASE("config keys that run programs are found, switches and data are not", "[integrity][gitconfig]") {
    struct Case {
        const char* text;
        const char* key;
    };
    const Case cases[] = {
        {"[core]\n\tfsmonitor = /w/evil.sh\n", "core.fsmonitor"},
        {"[core]\n\tfsmonitor = true\n", ""},
        {"[core]\n\tfsmonitor\n", ""},
        {"[core] pager = less\n", "core.pager"},
        {"[CORE]\n\tFSMonitor = x\n", "core.fsmonitor"},
        {"[core]\n\thooksPath = .husky\n", "core.hookspath"},
        {"[core]\n\tsshCommand = ssh -i k\n", "core.sshcommand"},
        {"[core]\n\teditor = vim\n", "core.editor"},
        {"[sequence]\n\teditor = x\n", "sequence.editor"},
        {"[diff]\n\texternal = x\n", "diff.external"},
        {"[diff \"pdf\"]\n\ttextconv = pdftotext\n", "diff.pdf.textconv"},
        {"[diff \"x\"]\n\tcommand = y\n", "diff.x.command"},
        {"[diff]\n\trenames = true\n", ""},
        {"[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", "filter.lfs.clean"},
        {"[filter \"lfs\"]\n\trequired = true\n\tprocess = git-lfs filter-process\n", "filter.lfs.process"},
        {"[merge \"ours\"]\n\tdriver = true\n", "merge.ours.driver"},
        {"[alias]\n\tst = status\n", ""},
        {"[alias]\n\tx = !sh -c evil\n", "alias.x"},
        {"[alias]\n\ty = \"  !evil\"\n", "alias.y"},
        {"[alias]\n\tz = -c core.pager=evil log\n", "alias.z"},
        {"[include]\n\tpath = ../shared.cfg\n", "include.path"},
        {"[includeIf \"gitdir:~/w/\"]\n\tpath = x\n", "includeif.gitdir:~/w/.path"},
        {"[pager]\n\tlog = false\n", ""},
        {"[pager]\n\tlog = less -R\n", "pager.log"},
        {"[color]\n\tpager = false\n", ""},
        {"[credential]\n\thelper = store\n", "credential.helper"},
        {"[credential \"https://x\"]\n\thelper = y\n", "credential.https://x.helper"},
        {"[gpg]\n\tprogram = x\n", "gpg.program"},
        {"[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program"},
        {"[submodule \"a\"]\n\tupdate = !evil\n", "submodule.a.update"},
        {"[submodule \"a\"]\n\tupdate = rebase\n", ""},
        {"[remote \"origin\"]\n\turl = https://x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", ""},
        {"[remote \"o\"]\n\tuploadpack = evil\n", "remote.o.uploadpack"},
        {"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", ""},
        {"[user]\n\tname = A ; comment\n\temail = \"a;b\"\n", ""},
        {"# [core] pager = x\n; fsmonitor = y\n[core]\n\tbare = false # fsmonitor = z\n", ""},
        {"[core]\n\tpager = le\\\nss\n", "core.pager"},
        {"[foo]\n\tbarCommand = x\n", "foo.barcommand"},
        {"[diff.pdf]\n\ttextconv = y\n", "diff.pdf.textconv"},
        {"[core\n\tpager = y\n", "(unreadable config)"},
        {"pager = y\n", "(unreadable config)"},
        {"[core]\n\tpager = \"unterminated\n", "(unreadable config)"},
        {"\xEF\xBB\xBF[core]\n\tbare = false\n", ""},
        {"", ""},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(first_code_key(c.text) == c.key);
    }
}

namespace {

using integrity::As;
using integrity::Result;
namespace fs = std::filesystem;

// A repository (base/ws) and a second one (base/other), owned by root, for check_git_config.
struct Repos {
    integrity::Workspace w{As::root};
    fs::path other = w.base / "other";
    Repos() {
        fs::create_directories(other);
        REQUIRE(integrity::run({"/usr/bin/git", "init", "-q", other.string()}, w.env()).status == 0);
    }
    void config(const fs::path& repo, const std::string& key, const std::string& value) const {
        Result r = integrity::run({"/usr/bin/git", "-C", repo.string(), "config", key, value}, w.env());
        INFO(r.out);
        REQUIRE(r.status == 0);
    }
    std::optional<toolcage::Verdict> check(const std::string& cmd, const fs::path& cwd) const {
        return check_git_config(cmd, cwd.string(), w.home.string());
    }
};

void caged(const std::optional<toolcage::Verdict>& v, const std::string& needle) {
    REQUIRE(v);
    INFO(v->reason);
    CHECK(v->decision == Decision::cage);
    CHECK(v->rule == "git.config-runs-code");
    CHECK(v->reason.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("git's repository is found as git finds it", "[integrity][gitguard]") {
    Repos r;
    auto top = find_git_repo(r.w.ws.string());
    REQUIRE(top);
    CHECK(top->gitdir == r.w.ws.string() + "/.git");
    CHECK(top->worktree == r.w.ws.string());
    fs::create_directories(r.w.ws / "a/b");
    auto deep = find_git_repo((r.w.ws / "a/b").string());
    REQUIRE(deep);
    CHECK(deep->gitdir == top->gitdir);
    auto inside = find_git_repo((r.w.ws / ".git/refs").string());
    REQUIRE(inside);
    CHECK(inside->gitdir == r.w.ws.string() + "/.git");
    CHECK_FALSE(find_git_repo("/proc/self"));

    // A linked worktree: a .git file, and the main repository's config through commondir.
    Result wt = r.w.git({"worktree", "add", "-q", (r.w.base / "wt").string()});
    INFO(wt.out);
    REQUIRE(wt.status == 0);
    auto linked = find_git_repo((r.w.base / "wt").string());
    REQUIRE(linked);
    CHECK(linked->gitdir == r.w.ws.string() + "/.git/worktrees/wt");
    CHECK(std::find(linked->configs.begin(), linked->configs.end(), r.w.ws.string() + "/.git/config") !=
          linked->configs.end());
}

TEST_CASE("read-only git is caged where the config names a program", "[integrity][gitguard]") {
    Repos r;
    CHECK_FALSE(r.check("git status", r.w.ws));
    CHECK_FALSE(r.check("git log --oneline | head", r.w.ws));
    r.config(r.w.ws, "core.fsmonitor", "/tmp/evil.sh");
    caged(r.check("git status", r.w.ws), "core.fsmonitor");
    caged(r.check("git diff HEAD~1", r.w.ws / ".git"), "core.fsmonitor");
    caged(r.check("bash -c 'git status'", r.w.ws), "core.fsmonitor");
    caged(r.check("ls && /usr/bin/git status", r.w.ws), "core.fsmonitor");
    CHECK_FALSE(r.check("ls -la", r.w.ws));  // no git, no check
    CHECK_FALSE(r.check("git status", r.other));
}

TEST_CASE("the repository git runs in is followed through -C, cd and --git-dir", "[integrity][gitguard]") {
    Repos r;
    r.config(r.other, "core.pager", "evil");
    caged(r.check("git -C ../other log", r.w.ws), "core.pager");
    caged(r.check("git -C .. -C other log", r.w.ws), "core.pager");
    caged(r.check("cd ../other && git log", r.w.ws), "core.pager");
    caged(r.check("git --git-dir=../other/.git log", r.w.ws), "core.pager");
    caged(r.check("GIT_DIR=../other/.git git log", r.w.ws), "core.pager");
    caged(r.check("cd \"$SOMEWHERE\" && git status", r.w.ws), "known only at run time");
    caged(r.check("git -C \"$D\" status", r.w.ws), "known only at run time");
    caged(r.check("GIT_CONFIG_GLOBAL=./cfg git log", r.w.ws), "GIT_CONFIG_GLOBAL");
    CHECK_FALSE(r.check("git log", r.w.ws));
}

TEST_CASE("a worktree is checked against the main repository's config", "[integrity][gitguard]") {
    Repos r;
    REQUIRE(r.w.git({"worktree", "add", "-q", (r.w.base / "wt").string()}).status == 0);
    CHECK_FALSE(r.check("git status", r.w.base / "wt"));
    r.config(r.w.ws, "diff.x.textconv", "evil");
    caged(r.check("git status", r.w.base / "wt"), "diff.x.textconv");
}

TEST_CASE("a submodule's config counts: git status runs git inside it", "[integrity][gitguard]") {
    Repos r;
    // other becomes a submodule of ws: a gitlink in the index and its checkout at ws/lib.
    REQUIRE(integrity::run({"/usr/bin/git", "-C", r.other.string(), "commit", "-q", "--allow-empty", "-m", "s"},
                           r.w.env())
                .status == 0);
    Result add = r.w.shell("git -c protocol.file.allow=always submodule add -q " + r.other.string() + " lib");
    INFO(add.out);
    REQUIRE(add.status == 0);
    CHECK_FALSE(r.check("git status", r.w.ws));
    auto sub = find_git_repo((r.w.ws / "lib").string());
    REQUIRE(sub);
    r.config(r.w.ws / "lib", "core.fsmonitor", "/tmp/evil.sh");
    caged(r.check("git status", r.w.ws), "core.fsmonitor");
    caged(r.check("git status", r.w.ws), sub->gitdir);
}

TEST_CASE("a post-index-change hook cages git status", "[integrity][gitguard]") {
    Repos r;
    r.w.put(".git/hooks/post-index-change", "#!/bin/sh\n", 0755);
    caged(r.check("git status", r.w.ws), "post-index-change");
}

// ---- through the built binary --------------------------------------------------------------

namespace {

using toolcage::test::HookFixture;

void git_init(const std::string& dir) {
    REQUIRE(integrity::run({"/usr/bin/git", "init", "-q", dir}, {{"PATH", "/usr/bin:/bin"}}).status == 0);
}

void set_fsmonitor(const std::string& dir) {
    std::ofstream(dir + "/.git/config", std::ios::app) << "[core]\n\tfsmonitor = " << dir << "/evil.sh\n";
}

json last_log(const HookFixture& f) {
    std::ifstream in(f.log);
    std::string line, last;
    while (std::getline(in, line)) last = line;
    return json::parse(last, nullptr, false);
}

}  // namespace

TEST_CASE("claude: git status runs read-only, and says so when the config runs code", "[integrity][hook]") {
    HookFixture f;
    git_init(f.ws);
    auto clean = f.hook(toolcage::test::claude_bash("git status", f.ws));
    INFO(clean.out << clean.err);
    json c = toolcage::test::parse_out(clean);
    CHECK(c["hookSpecificOutput"]["permissionDecision"] == "allow");
    CHECK(c["hookSpecificOutput"]["updatedInput"]["command"].get<std::string>().find(" --read-only -- ") !=
          std::string::npos);
    CHECK(last_log(f)["rule"] == "readonly.git");

    set_fsmonitor(f.ws);
    auto dirty = f.hook(toolcage::test::claude_bash("git status", f.ws));
    INFO(dirty.out << dirty.err);
    json d = toolcage::test::parse_out(dirty);
    REQUIRE(d["hookSpecificOutput"].contains("updatedInput"));
    std::string cmd = d["hookSpecificOutput"]["updatedInput"]["command"];
    CHECK(cmd.find("' run --policy ") != std::string::npos);
    CHECK(cmd.find(" --read-only -- /bin/bash -c 'git status'") != std::string::npos);
    CHECK(d["hookSpecificOutput"]["permissionDecisionReason"].get<std::string>().find("git.config-runs-code") !=
          std::string::npos);
    json log = last_log(f);
    CHECK(log["verdict"] == "allow");
    CHECK(log["rule"] == "git.config-runs-code");

    // With allow_runs "bare", a clean repository's git status runs as sent, this one caged.
    std::string bare = f.root / "bare.json";
    toolcage::test::write_file(bare, R"({"name": "bare", "extends": "default", "allow_runs": "bare"})");
    json b = toolcage::test::parse_out(f.hook(toolcage::test::claude_bash("git status", f.ws), {"--policy", bare}));
    CHECK(b["hookSpecificOutput"]["updatedInput"]["command"].get<std::string>().find("--read-only") ==
          std::string::npos);
    CHECK(last_log(f)["verdict"] == "cage");
}

TEST_CASE("hermes: git status runs read-only, and says so when the config runs code", "[integrity][hook]") {
    HookFixture f;
    git_init(f.ws);
    auto clean = f.hook(toolcage::test::hermes_terminal("git status", f.ws));
    INFO(clean.out << clean.err);
    CHECK(clean.exit_code == 0);
    CHECK(toolcage::test::parse_out(clean)["args"]["command"].get<std::string>().find(" --read-only -- ") !=
          std::string::npos);

    set_fsmonitor(f.ws);
    auto dirty = f.hook(toolcage::test::hermes_terminal("git status", f.ws));
    INFO(dirty.out << dirty.err);
    REQUIRE(dirty.exit_code == 0);
    json d = toolcage::test::parse_out(dirty);
    CHECK(d["action"] == "modify");
    CHECK(d["args"]["command"].get<std::string>().find("' run --policy ") != std::string::npos);
    CHECK(last_log(f)["rule"] == "git.config-runs-code");
}

TEST_CASE("file tools writing protected workspace paths ask a person", "[integrity][hook]") {
    HookFixture f;
    git_init(f.ws);
    for (const char* rel : {".mcp.json", ".vscode/settings.json", ".envrc", ".claude/commands/x.md"}) {
        INFO(rel);
        auto r = f.hook(toolcage::test::claude_payload(
            "Write", {{"file_path", f.ws + "/" + rel}, {"content", "{}"}}, f.ws));
        INFO(r.out << r.err);
        json h = toolcage::test::parse_out(r);
        CHECK(h["hookSpecificOutput"]["permissionDecision"] == "ask");
        CHECK(last_log(f)["rule"] == "file.protected-path");
    }
    auto edit = f.hook(toolcage::test::claude_payload(
        "Edit", {{"file_path", ".mcp.json"}, {"old_string", "a"}, {"new_string", "b"}}, f.ws));
    CHECK(toolcage::test::parse_out(edit)["hookSpecificOutput"]["permissionDecision"] == "ask");
    auto herm = f.hook(toolcage::test::hermes_payload("write_file", {{"path", ".mcp.json"}, {"content", "{}"}}, f.ws));
    INFO(herm.out << herm.err);
    CHECK(last_log(f)["verdict"] == "ask");
    CHECK(last_log(f)["rule"] == "file.protected-path");
    // An ordinary file stays the agent's own business.
    auto plain = f.hook(toolcage::test::claude_payload("Write", {{"file_path", f.ws + "/notes.md"}, {"content", "x"}}, f.ws));
    CHECK(plain.out == "{}\n");
}

static void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST_CASE("the git check follows core.worktree, .git/modules, .gitmodules and remotes' ways out",
          "[integrity][gitguard]") {
    // A submodule's own git directory under .git/modules, with a program in its config: found
    // even when the index names no submodule.
    {
        Repos r;
        CHECK_FALSE(r.check("git status", r.w.ws));
        fs::path mod = r.w.ws / ".git/modules/lib";
        fs::create_directories(mod);
        REQUIRE(integrity::run({"/usr/bin/git", "init", "-q", "--bare", mod.string()}, r.w.env()).status == 0);
        r.config(mod, "core.fsmonitor", "/tmp/x.sh");
        caged(r.check("git status", r.w.ws), "modules/lib/config");
    }
    // .gitmodules names a checkout whose .git file points at a planted git directory.
    {
        Repos r;
        fs::create_directories(r.w.ws / "vendor/x");
        put(r.w.ws / ".gitmodules", "[submodule \"x\"]\n\tpath = vendor/x\n\turl = ./x\n");
        put(r.w.ws / "vendor/x/.git", "gitdir: " + r.other.string() + "/.git\n");
        CHECK_FALSE(r.check("git status", r.w.ws));
        r.config(r.other, "core.fsmonitor", "/tmp/x.sh");
        caged(r.check("git status", r.w.ws), "other/.git/config");
    }
    // core.worktree points at another tree; its submodule checkout leads to a planted config.
    {
        Repos r;
        fs::path tree = r.w.base / "tree2";
        fs::create_directories(tree / "sub");
        put(tree / ".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n");
        put(tree / "sub/.git", "gitdir: " + r.other.string() + "/.git\n");
        r.config(r.other, "core.fsmonitor", "/tmp/x.sh");
        CHECK_FALSE(r.check("git status", r.w.ws));
        r.config(r.w.ws, "core.worktree", tree.string());
        caged(r.check("git status", r.w.ws), "other/.git/config");
    }
    // The ways a remote is reached: a transport helper, protocol.*, url.*.insteadOf.
    for (auto [key, value] : std::initializer_list<std::pair<const char*, const char*>>{
             {"remote.origin.url", "ext::sh -c touch% /tmp/pwned"},
             {"remote.origin.url", "fd::3"},
             {"protocol.allow", "always"},
             {"protocol.ext.allow", "always"},
             {"url.ext::sh -c id.insteadof", "https://"}}) {
        Repos r;
        r.config(r.w.ws, "remote.plain.url", "https://example.invalid/x.git");
        CHECK_FALSE(r.check("git ls-remote plain", r.w.ws));
        r.config(r.w.ws, key, value);
        INFO(key);
        caged(r.check("git ls-remote origin", r.w.ws), key);
    }
}
