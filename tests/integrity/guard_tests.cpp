// The after-step check on its own (cage/integrity/workspace_guard.h) and the protected list and its
// Landlock rules (cage/integrity/protected_paths.h), on real directories: every way a step can
// change a protected path, and the ways a restore could be tricked into writing somewhere else.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cage/containment/landlock_uapi.h"
#include "cage/integrity/protected_paths.h"
#include "cage/integrity/workspace_guard.h"
#include "common/error.h"

using namespace toolcage::cage;
namespace fs = std::filesystem;

namespace {

struct Tree {
    fs::path base, ws;
    Tree() {
        char tmpl[] = "/tmp/toolcage-guard-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        base = tmpl;
        ws = base / "ws";
        for (const char* d : {".git/hooks", ".git/info", ".git/objects/ab", ".git/refs/heads", "src", ".vscode"})
            fs::create_directories(ws / d);
        put(".git/config", "[core]\n\trepositoryformatversion = 0\n");
        put(".git/HEAD", "ref: refs/heads/main\n");
        put(".git/hooks/pre-commit.sample", "#!/bin/sh\nexit 0\n", 0755);
        put(".git/info/exclude", "# excludes\n");
        put(".git/objects/ab/cdef", "blob");
        put(".gitmodules", "[submodule \"a\"]\n");
        put(".vscode/settings.json", "{}\n");
        put("src/main.c", "int main(void){return 0;}\n");
        put("README", "hi\n");
    }
    ~Tree() {
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    void put(const std::string& rel, const std::string& text, mode_t mode = 0644) const {
        fs::path p = ws / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        ::chmod(p.c_str(), mode);
    }
    std::string read(const std::string& rel) const {
        std::ifstream f(ws / rel, std::ios::binary);
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    }
    bool has(const std::string& rel) const {
        std::error_code ec;
        return fs::exists(fs::symlink_status(ws / rel, ec));
    }
    mode_t mode(const std::string& rel) const {
        struct stat st {};
        ::lstat((ws / rel).c_str(), &st);
        return st.st_mode;
    }
    ino_t ino(const std::string& rel) const {
        struct stat st {};
        ::lstat((ws / rel).c_str(), &st);
        return st.st_ino;
    }
};

std::vector<ProtectedPath> defaults() { return protected_paths({}); }

std::vector<std::string> texts(const std::vector<TamperEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.text());
    return out;
}

}  // namespace

TEST_CASE("the protected list is the built-in floor joined with the policy's", "[integrity][list]") {
    auto none = protected_paths({});
    CHECK(is_protected(".git/config", none));
    CHECK(is_protected(".git/hooks/pre-commit", none));
    CHECK(is_protected(".claude/settings.json", none));
    CHECK(is_protected(".mcp.json", none));
    CHECK(is_protected(".envrc", none));
    CHECK_FALSE(is_protected(".git/HEAD", none));
    CHECK_FALSE(is_protected(".mcp.json.bak", none));
    CHECK_FALSE(is_protected(".claudex", none));

    auto more = protected_paths({"./Makefile", "ci//", ".claude/commands/", ".git/config"});
    CHECK(is_protected("Makefile", more));
    CHECK(is_protected("ci/deploy.sh", more));
    CHECK(more.size() == none.size() + 2);  // .claude/commands/ lies below .claude/; .git/config is there

    CHECK_THROWS_WITH(protected_paths({"/etc/passwd"}), Catch::Contains("is absolute"));
    CHECK_THROWS_WITH(protected_paths({"../x"}), Catch::Contains("climbs out"));
    CHECK_THROWS_WITH(protected_paths({""}), Catch::Contains("empty"));
    CHECK_THROWS_WITH(protected_paths({"./"}), Catch::Contains("the workspace itself"));
}

TEST_CASE("an untouched workspace gives no event", "[integrity][guard]") {
    Tree t;
    WorkspaceGuard g(t.ws.string(), defaults());
    t.put("src/main.c", "changed freely\n");
    t.put("new.txt", "new\n");
    CHECK(g.restore().empty());
}

TEST_CASE("changed, created, removed and replaced protected paths are put back", "[integrity][guard]") {
    Tree t;
    WorkspaceGuard g(t.ws.string(), defaults());
    t.put(".git/config", "[core]\n\tfsmonitor = /tmp/evil\n");
    t.put(".git/hooks/post-checkout", "#!/bin/sh\nevil\n", 0755);
    fs::remove(t.ws / ".gitmodules");
    fs::remove_all(t.ws / ".vscode");
    t.put(".vscode", "now a file\n");
    t.put(".claude/commands/x.md", "run evil\n");
    t.put(".envrc", "evil\n");
    fs::remove(t.ws / ".git/info/exclude");
    fs::create_directories(t.ws / ".git/info/exclude/inner");

    auto events = g.restore();
    auto got = texts(events);
    std::vector<std::string> want = {
        ".git/config changed; restored",
        ".git/hooks/post-checkout created; removed",
        ".git/info/exclude replaced by a directory; restored",
        ".gitmodules removed; restored",
        ".claude created; removed",
        ".vscode replaced by a file; restored",
        ".envrc created; removed",
    };
    CHECK(got == want);
    for (const auto& e : events) CHECK(e.undone);
    CHECK(t.read(".git/config") == "[core]\n\trepositoryformatversion = 0\n");
    CHECK(t.read(".gitmodules") == "[submodule \"a\"]\n");
    CHECK(t.read(".vscode/settings.json") == "{}\n");
    CHECK(t.read(".git/info/exclude") == "# excludes\n");
    CHECK_FALSE(t.has(".claude"));
    CHECK_FALSE(t.has(".envrc"));
    CHECK_FALSE(t.has(".git/hooks/post-checkout"));
    CHECK(g.restore().empty());  // nothing left to do
}

TEST_CASE("a restore never writes through a symlink the step planted", "[integrity][guard][symlink]") {
    Tree t;
    fs::path outside = t.base / "outside";
    fs::create_directories(outside);
    std::ofstream(outside / "config") << "outside\n";
    WorkspaceGuard g(t.ws.string(), defaults());
    // The protected file becomes a link to a file elsewhere; a protected directory a link to
    // a directory elsewhere; a new protected name a link too.
    fs::remove(t.ws / ".git/config");
    fs::create_symlink(outside / "config", t.ws / ".git/config");
    fs::remove_all(t.ws / ".vscode");
    fs::create_directory_symlink(outside, t.ws / ".vscode");
    fs::create_directory_symlink(outside, t.ws / ".claude");

    auto got = texts(g.restore());
    CHECK(got == std::vector<std::string>{".git/config replaced by a symlink; restored",
                                          ".claude created; removed",
                                          ".vscode replaced by a symlink; restored"});
    CHECK(t.read(".git/config") == "[core]\n\trepositoryformatversion = 0\n");
    CHECK(S_ISREG(t.mode(".git/config")));
    CHECK(S_ISDIR(t.mode(".vscode")));
    std::ifstream f(outside / "config");
    std::string line;
    std::getline(f, line);
    CHECK(line == "outside");  // untouched
    CHECK_FALSE(fs::exists(outside / "settings.json"));
    CHECK(fs::exists(outside));
}

TEST_CASE("a snapshot does not follow a symlink in the workspace", "[integrity][guard][symlink]") {
    Tree t;
    fs::path outside = t.base / "big";
    fs::create_directories(outside);
    std::ofstream(outside / "f") << "x";
    fs::create_directory_symlink(outside, t.ws / ".idea");
    WorkspaceGuard g(t.ws.string(), defaults());
    // The link is protected as a link: its target may change, the link may not.
    std::ofstream(outside / "g") << "y";
    CHECK(g.restore().empty());
    fs::remove(t.ws / ".idea");
    fs::create_directory_symlink(t.base, t.ws / ".idea");
    CHECK(texts(g.restore()) == std::vector<std::string>{".idea changed; restored"});
    CHECK(fs::read_symlink(t.ws / ".idea") == outside);
}

TEST_CASE("a protected file hard-linked elsewhere in the workspace is relinked", "[integrity][guard]") {
    Tree t;
    WorkspaceGuard g(t.ws.string(), defaults());
    fs::create_hard_link(t.ws / ".git/config", t.ws / "src/looks-harmless");
    CHECK(texts(g.restore()) == std::vector<std::string>{".git/config changed; restored"});
    CHECK(t.ino(".git/config") != t.ino("src/looks-harmless"));
    CHECK(t.read(".git/config") == "[core]\n\trepositoryformatversion = 0\n");
}

TEST_CASE(".git renamed away is moved back, an impostor removed", "[integrity][guard][git]") {
    Tree t;
    const ino_t git = t.ino(".git");
    SECTION("renamed in the workspace root") {
        WorkspaceGuard g(t.ws.string(), defaults());
        fs::rename(t.ws / ".git", t.ws / "old-git");
        CHECK(texts(g.restore()) == std::vector<std::string>{".git renamed to old-git; moved back"});
    }
    SECTION("renamed into a subdirectory, a new .git in its place") {
        WorkspaceGuard g(t.ws.string(), defaults());
        fs::rename(t.ws / ".git", t.ws / "src/hidden");
        t.put(".git/config", "[core]\n\tfsmonitor = evil\n");
        t.put(".git/HEAD", "ref: refs/heads/x\n");
        CHECK(texts(g.restore()) == std::vector<std::string>{
                                        ".git replaced by another directory; removed the new one",
                                        ".git renamed to src/hidden; moved back"});
        CHECK_FALSE(t.has("src/hidden"));
    }
    SECTION("replaced by a .git file pointing elsewhere") {
        WorkspaceGuard g(t.ws.string(), defaults());
        fs::rename(t.ws / ".git", t.ws / ".git2");
        t.put(".git", "gitdir: /tmp/evil\n");
        CHECK(texts(g.restore()) == std::vector<std::string>{".git replaced by another file; removed the new one",
                                                             ".git renamed to .git2; moved back"});
    }
    SECTION("moved into the step's temp directory") {
        fs::path tmp = t.base / "steptmp";
        fs::create_directories(tmp);
        WorkspaceGuard g(t.ws.string(), defaults());
        fs::rename(t.ws / ".git", tmp / "g");
        CHECK(texts(g.restore({tmp.string()})) ==
              std::vector<std::string>{".git renamed to " + tmp.string() + "/g; moved back"});
    }
    SECTION("deleted: reported, the protected files recreated") {
        WorkspaceGuard g(t.ws.string(), defaults());
        fs::remove_all(t.ws / ".git");
        auto events = g.restore();
        REQUIRE_FALSE(events.empty());
        CHECK(events[0].text() == ".git removed; not restored: the original directory is nowhere in the workspace");
        CHECK_FALSE(events[0].undone);
        CHECK(t.read(".git/config") == "[core]\n\trepositoryformatversion = 0\n");
        return;
    }
    CHECK(t.ino(".git") == git);
    CHECK(t.read(".git/config") == "[core]\n\trepositoryformatversion = 0\n");
    CHECK(t.read(".git/objects/ab/cdef") == "blob");
}

TEST_CASE("a .git file (worktree or submodule) is protected by its content", "[integrity][guard][git]") {
    Tree t;
    fs::remove_all(t.ws / ".git");
    t.put(".git", "gitdir: ../main/.git/worktrees/ws\n");
    WorkspaceGuard g(t.ws.string(), defaults());
    t.put(".git", "gitdir: ./evil\n");
    CHECK(texts(g.restore()) == std::vector<std::string>{".git changed; restored"});
    CHECK(t.read(".git") == "gitdir: ../main/.git/worktrees/ws\n");
}

TEST_CASE("changes git never runs stay: a plain config, hook samples, a new repository",
          "[integrity][guard][inert]") {
    Tree t;
    SECTION("a config change of settings git only stores") {
        WorkspaceGuard g(t.ws.string(), defaults());
        t.put(".git/config", "[core]\n\tbare = false\n[user]\n\tname = x\n[branch \"main\"]\n\tremote = origin\n");
        t.put(".git/hooks/post-update.sample", "#!/bin/sh\n", 0755);
        CHECK(g.restore().empty());
        CHECK(t.read(".git/config").find("remote = origin") != std::string::npos);
    }
    SECTION("a new remote's URL in a repository the step did not make") {
        WorkspaceGuard g(t.ws.string(), defaults());
        t.put(".git/config", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.org/x\n");
        CHECK(texts(g.restore()) == std::vector<std::string>{".git/config changed; restored"});
    }
    SECTION("a config change that names a program") {
        WorkspaceGuard g(t.ws.string(), defaults());
        t.put(".git/config", "[core]\n\tbare = false\n[diff \"x\"]\n\ttextconv = evil\n");
        CHECK(texts(g.restore()) == std::vector<std::string>{".git/config changed; restored"});
    }
    SECTION("a repository made where there was none") {
        fs::remove_all(t.ws / ".git");
        WorkspaceGuard g(t.ws.string(), defaults());
        t.put(".git/config", "[core]\n\trepositoryformatversion = 0\n");
        t.put(".git/hooks/pre-push.sample", "#!/bin/sh\n", 0755);
        t.put(".git/info/exclude", "# x\n");
        t.put(".git/HEAD", "ref: refs/heads/main\n");
        CHECK(g.restore().empty());
        SECTION("but not its hooks, attributes or a .git file") {
            t.put(".git/hooks/pre-commit", "#!/bin/sh\n", 0755);
            t.put(".git/info/attributes", "* diff=x\n");
            CHECK(texts(g.restore()) == std::vector<std::string>{".git/hooks created; removed",
                                                                 ".git/info created; removed"});
            fs::remove_all(t.ws / ".git");
            t.put(".git", "gitdir: elsewhere\n");
            CHECK(texts(g.restore()) == std::vector<std::string>{".git created; removed"});
        }
    }
}

TEST_CASE("a protected file beyond what is kept is watched by identity", "[integrity][guard]") {
    Tree t;
    int fd = ::open((t.ws / ".vscode/huge").c_str(), O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, (16 << 20) + 1) == 0);
    ::close(fd);
    WorkspaceGuard g(t.ws.string(), defaults());
    CHECK(g.snapshot_bytes() < (1 << 20));
    CHECK(g.restore().empty());
    std::ofstream(t.ws / ".vscode/huge", std::ios::in | std::ios::out) << "planted";
    auto events = g.restore();
    REQUIRE(events.size() == 1);
    CHECK(events[0].text() == ".vscode/huge changed; not restored: the protected paths hold more than "
                              "toolcage run keeps (16 MiB)");
    CHECK_FALSE(events[0].undone);
}

TEST_CASE("a protected tree with too many entries refuses the step", "[integrity][guard]") {
    Tree t;
    std::string cmd = "cd " + (t.ws / ".idea").string() + " 2>/dev/null || mkdir " + (t.ws / ".idea").string() +
                      " && cd " + (t.ws / ".idea").string() + " && seq 1 100001 | xargs touch";
    REQUIRE(std::system(cmd.c_str()) == 0);
    CHECK_THROWS_WITH(WorkspaceGuard(t.ws.string(), defaults()),
                      Catch::Contains(".idea") && Catch::Contains("100000") && Catch::Contains("the step does not run"));
}

TEST_CASE("each tamper event is one JSON line naming the rule, the path and the action", "[integrity][log]") {
    TamperEvent e{".git/config", "changed", "restored", true};
    TamperContext ctx{"default", "/w", {"/bin/sh", "-c", "x"}};
    std::string line = tamper_line(e, ctx);
    REQUIRE(line.back() == '\n');
    CHECK(line.find('\n') == line.size() - 1);
    auto j = nlohmann::json::parse(line);
    CHECK(j["event"] == "tamper");
    CHECK(j["verdict"] == "tamper");
    CHECK(j["rule"] == "cage.tamper");
    CHECK(j["reason"] == ".git/config changed; restored");
    CHECK(j["path"] == ".git/config");
    CHECK(j["undone"] == true);
    CHECK(j["workspace"] == "/w");
    CHECK(j["profile"] == "default");
    CHECK(j["command"] == "/bin/sh -c x");
    CHECK(report_tamper({}, 7, ctx) == 7);
}

TEST_CASE("Landlock keeps the existing protected paths from being written in place", "[integrity][landlock]") {
    namespace ll = toolcage::landlock;
    Tree t;
    fs::create_directory_symlink("/etc", t.ws / "etc-link");
    const std::uint64_t write = ll::kFsWriteFile | ll::kFsTruncate | ll::kFsMakeReg | ll::kFsRemoveFile |
                                ll::kFsReadFile | ll::kFsReadDir | ll::kFsMakeDir | ll::kFsRefer;
    LandlockPlan plan;
    plan.handled_fs = ll::fs_rights_for_abi(7);
    plan.rules.push_back({t.ws.string(), write, true});
    auto notes = keep_protected_read_only(plan, t.ws.string(), defaults());
    CHECK(notes.empty());
    auto rule = [&](const std::string& rel) -> const PathRule* {
        for (const auto& r : plan.rules)
            if (r.path == (rel.empty() ? t.ws.string() : (t.ws / rel).string())) return &r;
        return nullptr;
    };
    REQUIRE(rule(""));
    CHECK((rule("")->access & (ll::kFsWriteFile | ll::kFsTruncate)) == 0);
    CHECK((rule("")->access & ll::kFsMakeReg) != 0);  // new entries can still be made (the check catches them)
    for (const char* w : {"src", "README", ".git/objects", ".git/refs", ".git/HEAD"}) {
        INFO(w);
        REQUIRE(rule(w));
        CHECK((rule(w)->access & ll::kFsWriteFile) != 0);
    }
    CHECK((rule("README")->access & ~ll::kFsFileRights) == 0);  // files get file rights only
    for (const char* p : {".git", ".git/config", ".git/hooks", ".git/info", ".gitmodules", ".vscode", "etc-link"}) {
        INFO(p);
        CHECK_FALSE(rule(p));
    }

    SECTION("a write grant above the workspace is named: Landlock cannot help then") {
        LandlockPlan above;
        above.handled_fs = plan.handled_fs;
        above.rules.push_back({t.base.string(), write, true});
        auto n = keep_protected_read_only(above, t.ws.string(), defaults());
        REQUIRE(n.size() == 1);
        CHECK(n[0].find(t.base.string()) != std::string::npos);
    }
}
