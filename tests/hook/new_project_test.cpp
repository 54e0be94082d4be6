// Commands that start a project in a work root, read into the new directory and the step that
// runs inside it (hook/decision/new_project.h); anything else is not one.
#include <catch2/catch.hpp>

#include "hook/decision/new_project.h"

using toolcage::hook::new_project;

TEST_CASE("project starters name their new directory and run inside it", "[new-project]") {
    struct Case {
        const char* command;
        const char* dir;
        const char* inside;
    };
    for (const Case& c : std::initializer_list<Case>{
             {"git clone https://example.org/a/repo.git proj", "proj", "git clone -- https://example.org/a/repo.git ."},
             {"git clone https://example.org/a/repo.git", "repo", "git clone -- https://example.org/a/repo.git ."},
             {"git clone git@example.org:a/tool", "tool", "git clone -- git@example.org:a/tool ."},
             {"git clone --depth 1 -b main /srv/r.git x", "x", "git clone --depth 1 -b main -- /srv/r.git ."},
             {"mkdir proj", "proj", ":"},
             {"mkdir -p proj", "proj", ":"},
             {"npm create vite@latest app", "app", "npm create vite@latest ."},
             {"npm init vite app -- --template react", "app", "npm init vite . -- --template react"},
             {"cargo new hello", "hello", "cargo init"},
             {"uv init tool", "tool", "uv init"},
         }) {
        INFO(c.command);
        auto np = new_project(c.command);
        REQUIRE(np);
        CHECK(np->dir == c.dir);
        CHECK(np->command == c.inside);
    }
}

TEST_CASE("anything else is no project starter", "[new-project]") {
    for (const char* c : {"git clone", "git clone url a/b", "git clone url ..", "git clone url .hidden", "mkdir a b",
                          "mkdir ../x", "mkdir /tmp/x", "mkdir $X", "mkdir x && rm -rf ~", "mkdir x > f", "A=1 mkdir x",
                          "npm init -y", "npm create", "cargo new", "cargo new a/b", "uv init", "uv init a b",
                          "git clone url dir extra", "make", "git clone url -x dir"}) {
        INFO(c);
        CHECK_FALSE(new_project(c));
    }
}
