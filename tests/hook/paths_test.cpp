// Path arithmetic of the hook: folding . and .. as the filesystem library does (checked against
// std::filesystem on generated paths), and seeing through symlinks that exist, dangle or loop.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "hook/call/paths.h"

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
    CHECK(real_location(D + "/abs-link/../x") == D + "/x");       // folded lexically first
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
