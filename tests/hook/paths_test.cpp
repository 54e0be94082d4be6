// Path arithmetic of the hook: folding . and .. as the filesystem library does (checked against
// std::filesystem on generated paths), and seeing through symlinks that exist, dangle or loop
// as the kernel does (checked against realpath(3) where the path exists).
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "common/path_resolver.h"
#include "hook/call/paths.h"
#include "tests/other_user.h"

namespace fs = std::filesystem;
using toolcage::hook::absolute_path;
using toolcage::hook::real_location;

namespace {

// The reference: std::filesystem's lexical normalisation, with our two rules on top (no
// trailing slash; nothing above the root).
std::string reference_absolute(const std::string& path, const std::string& base, const std::string& home) {
    if (path.empty()) return {};
    std::string p = path == "~" ? home : path.starts_with("~/") ? home + path.substr(1) : path;
    if (p.starts_with("~")) {  // ~name: that user's home, else /~name when it is a user name
        size_t slash = p.find('/');
        std::string name = p.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
        std::string h = toolcage::hook::user_home(name);
        bool valid = name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                     std::string::npos;
        if (h.empty() && valid) h = "/~" + name;
        if (!h.empty()) p = h + (slash == std::string::npos ? std::string() : p.substr(slash));
    }
    fs::path fp(p);
    if (fp.is_relative()) fp = fs::path(base.empty() ? "/" : base) / fp;
    std::string out = fp.lexically_normal().string();
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    while (out.starts_with("/../")) out.erase(0, 3);
    if (out == "/..") out = "/";
    return out;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "toolcage-paths-XXXXXX").string();
        REQUIRE(mkdtemp(t.data()) != nullptr);
        path = fs::canonical(t);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("absolute_path folds paths as std::filesystem does") {
    const char* samples[] = {"a", "a/b", "./a", "a/./b", "a/../b", "../a", "../../..", "/", "//", "/a//b/", "/a/b/..",
                             "/a/b/../..", "/..", "/../a", "~", "~/x", "~/../x", "~x y", "a/", ".", "..", "x/y/../../..",
                             "/a/./../b/./c/", "-rf", "--out=/x", "a b/c"};
    for (const char* s : samples) {
        for (const char* base : {"/work/ws", "/", "", "/work/ws/"}) {
            INFO(s << " from " << base);
            CHECK(absolute_path(s, base, "/home/u") == reference_absolute(s, base, "/home/u"));
        }
    }
    // Generated paths over a small alphabet, where the corner cases live.
    std::mt19937 rng(7);
    const char* parts[] = {"a", "b", ".", "..", "", "~", "c.d"};
    for (int n = 0; n < 5000; ++n) {
        std::string p = rng() % 3 == 0 ? "/" : "";
        int k = static_cast<int>(rng() % 6);
        for (int i = 0; i < k; ++i) p += std::string(parts[rng() % 7]) + (rng() % 4 == 0 ? "" : "/");
        INFO(p);
        CHECK(absolute_path(p, "/w/x", "/h") == reference_absolute(p, "/w/x", "/h"));
    }
}

TEST_CASE("real_location follows symlinks, dangling ones too, and stops on loops") {
    TempDir t;
    fs::path d = t.path;
    fs::create_directories(d / "real/sub");
    fs::create_directory_symlink(d / "real", d / "abs-link");
    fs::create_directory_symlink("real/sub", d / "rel-link");
    fs::create_symlink(d / "real/not-yet", d / "dangling");
    fs::create_symlink("hop2", d / "hop1");
    fs::create_symlink("hop1", d / "hop2");
    std::string D = d.string();

    CHECK(real_location(D + "/abs-link/f") == D + "/real/f");
    CHECK(real_location(D + "/rel-link/f") == D + "/real/sub/f");
    CHECK(real_location(D + "/rel-link") == D + "/real/sub");
    CHECK(real_location(D + "/dangling") == D + "/real/not-yet");
    CHECK(real_location(D + "/real/a/b/c") == D + "/real/a/b/c");  // nothing of the tail exists
    CHECK(real_location(D + "/abs-link/../x") == D + "/x");       // `..` of where the link leads
    CHECK(real_location(D + "/rel-link/../x") == D + "/real/x");  // not of the text (D/x)
    CHECK(real_location(D + "/hop1/x") == D + "/hop1/x");         // a loop gives the input back
    CHECK(real_location("relative/path") == "relative/path");
    CHECK(real_location("") == "");
    CHECK(real_location("/") == "/");
}

TEST_CASE("~name is that user's home from the user database, as the shell expands it", "[paths]") {
    std::string root_home = toolcage::hook::user_home("root");
    REQUIRE(!root_home.empty());
    CHECK(absolute_path("~root/.bashrc", "/ws", "/home/me") == root_home + "/.bashrc");
    CHECK(absolute_path("~root", "/ws", "/home/me") == root_home);
    // A user /etc/passwd does not know lands at the root (no workspace holds it); a name a
    // shell would not expand stays relative, as the agent's tool leaves it.
    CHECK(absolute_path("~no-such-user-zz/x", "/ws", "/home/me") == "/~no-such-user-zz/x");
    CHECK(absolute_path("~ro$ot/x", "/ws", "/home/me") == "/ws/~ro$ot/x");
    CHECK(toolcage::hook::user_home("").empty());
    CHECK(toolcage::hook::user_home("root;id").empty());
}

TEST_CASE("PathResolver::trace walks as the kernel does: a link first, `..` after it", "[paths]") {
    TempDir t;
    const std::string D = t.path.string();
    fs::create_directories(D + "/ws/sub");
    fs::create_directories(D + "/home/.cache");
    fs::create_directory_symlink(D + "/home/.cache", D + "/ws/k");
    fs::create_symlink("k/..", D + "/ws/d");          // its own target passes a link
    fs::create_symlink("d", D + "/ws/d2");            // a link to that link
    fs::create_symlink("k/../.bashrc", D + "/ws/notes.md");
    fs::create_symlink("nowhere/x", D + "/ws/dang");  // dangling, relative
    fs::create_symlink("loop-b", D + "/ws/loop-a");
    fs::create_symlink("loop-a", D + "/ws/loop-b");
    toolcage::PathResolver resolver;

    auto r = resolver.trace(D + "/ws/k/../.bashrc");
    REQUIRE(r.error.empty());
    CHECK(r.path == D + "/home/.bashrc");
    REQUIRE(r.links.size() == 1);
    CHECK(r.links[0].at == D + "/ws/k");
    CHECK(r.links[0].target == D + "/home/.cache");
    CHECK(r.links[0].leads == D + "/home/.cache");

    // A chain: d2 -> d -> k/.., each link with where it leads.
    r = resolver.trace(D + "/ws/d2/.bash_login");
    REQUIRE(r.error.empty());
    CHECK(r.path == D + "/home/.bash_login");
    REQUIRE(r.links.size() == 3);
    CHECK(r.links[0].at == D + "/ws/d2");
    CHECK(r.links[0].leads == D + "/home");
    CHECK(r.links[1].at == D + "/ws/d");
    CHECK(r.links[1].leads == D + "/home");
    CHECK(r.links[2].at == D + "/ws/k");
    CHECK(r.links[2].leads == D + "/home/.cache");

    CHECK(resolver.trace(D + "/ws/notes.md").path == D + "/home/.bashrc");
    // Dangling: the target, from the link's directory, as the write would create it.
    CHECK(resolver.trace(D + "/ws/dang").path == D + "/ws/nowhere/x");
    // Names that do not exist yet are walked on: `..` back out of them reaches a link again.
    CHECK(resolver.trace(D + "/ws/new/../k/../x").path == D + "/home/x");
    CHECK(resolver.trace(D + "/ws/new/deeper/file").path == D + "/ws/new/deeper/file");

    // Where the path exists, the answer is realpath(3)'s.
    for (const char* p : {"/ws/k/..", "/ws/d", "/ws/d2", "/ws/sub/../k", "/ws/./sub//", "/ws/d2/.cache/.."}) {
        INFO(p);
        char buf[PATH_MAX];
        REQUIRE(::realpath((D + p).c_str(), buf) != nullptr);
        CHECK(resolver.trace(D + p).path == buf);
    }

    // A loop, a path past PATH_MAX and a relative path are errors, with no path.
    r = resolver.trace(D + "/ws/loop-a/x");
    CHECK(r.path.empty());
    CHECK(r.error.find("more than 40 symlinks") != std::string::npos);
    r = resolver.trace(D + "/" + std::string(PATH_MAX, 'a'));
    CHECK(r.path.empty());
    CHECK(r.error.find("PATH_MAX") != std::string::npos);
    CHECK(!resolver.trace("ws/k").error.empty());
    // resolve() gives such a path back as written, lexically normal.
    CHECK(resolver.resolve(D + "/ws/loop-a/../x") == D + "/ws/x");
}

TEST_CASE("PathResolver::trace follows 40 links and refuses the 41st, as the kernel's ELOOP", "[paths]") {
    TempDir t;
    const std::string D = t.path.string();
    fs::create_directories(D + "/end");
    // hop0 -> hop1 -> ... -> hopN -> end
    auto chain = [&](int n) {
        fs::remove_all(D + "/c");
        fs::create_directories(D + "/c");
        for (int i = 0; i < n; ++i)
            fs::create_symlink(i + 1 < n ? "hop" + std::to_string(i + 1) : D + "/end", D + "/c/hop" + std::to_string(i));
        return D + "/c/hop0";
    };
    std::string top = chain(40);
    toolcage::PathResolver at_limit;
    auto r = at_limit.trace(top + "/file");
    CHECK(r.error.empty());
    CHECK(r.path == D + "/end/file");
    CHECK(r.links.size() == 40);
    CHECK(::access(top.c_str(), F_OK) == 0);  // the kernel agrees
    top = chain(41);
    toolcage::PathResolver past;
    CHECK(past.trace(top + "/file").error.find("more than 40 symlinks") != std::string::npos);
    errno = 0;
    CHECK(::access(top.c_str(), F_OK) != 0);
    CHECK(errno == ELOOP);
}

TEST_CASE("PathResolver::trace as an ordinary user: a lookup the system refuses is an error, not a guess",
          "[paths]") {
    TempDir t;
    const std::string D = t.path.string();
    fs::create_directories(D + "/ws");
    fs::create_directories(D + "/locked");
    fs::create_symlink("../locked/secret", D + "/ws/lk");
    ::chmod(D.c_str(), 0755);
    ::chmod((D + "/ws").c_str(), 0755);
    ::chmod((D + "/locked").c_str(), 0);  // no one but root may look inside
    // The case's user: nobody when the tests run as root, else the tests' own user (mode 0 keeps
    // even the owner out).
    // nobody's state directory lives in the tests' scratch, which the process that makes it
    // removes: made here, not in the child.
    (void)testsupport::suite_state_word(true);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (!testsupport::become_case_user(true)) ::_exit(10);
        toolcage::PathResolver resolver;
        auto refused = resolver.trace(D + "/ws/lk");
        if (!refused.path.empty()) ::_exit(11);
        if (refused.error != "readlink(\"" + D + "/locked/secret\"): Permission denied") ::_exit(12);
        // resolve() falls back to the name as written; the workspace itself resolves as usual.
        if (resolver.resolve(D + "/ws/lk") != D + "/ws/lk") ::_exit(13);
        auto fine = resolver.trace(D + "/ws/new.txt");
        if (!fine.error.empty() || fine.path != D + "/ws/new.txt") ::_exit(14);
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ::chmod((D + "/locked").c_str(), 0700);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
