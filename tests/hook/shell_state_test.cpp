// The agent's shell around a rewrite: only directory moves with literal arguments run there, in
// toolcage's own words; every other builtin goes in the cage with the rest.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "hook/decision/rewrite.h"
#include "hook/decision/shell_state.h"
#include "run_binary.h"

using toolcage::hook::cwd_after_moves;
using toolcage::hook::is_moves_text;
using toolcage::hook::only_moves;
using toolcage::hook::split_shell_state;

TEST_CASE("directory moves alone are written in toolcage's words", "[shell-state]") {
    struct Case {
        const char* cmd;
        const char* text;
    };
    for (const Case& k : std::initializer_list<Case>{
             {"cd sub", "builtin cd './sub'"},
             {"cd -- sub", "builtin cd './sub'"},
             {"cd 'my dir'", "builtin cd './my dir'"},
             {"cd \"it's\"", "builtin cd './it'\\''s'"},
             {"cd '$(id)'", "builtin cd './$(id)'"},
             {"cd /tmp", "builtin cd '/tmp'"},
             {"cd ..", "builtin cd '..'"},
             {"cd ../x", "builtin cd '../x'"},
             {"cd ./x", "builtin cd './x'"},
             {"cd -- -x", nullptr},
             {"builtin cd sub", "builtin cd './sub'"},
             {"pushd /tmp && popd", "builtin pushd '/tmp' && builtin popd"},
             {"cd a && cd b", "builtin cd './a' && builtin cd './b'"},
             {"builtin cd './sub'", "builtin cd './sub'"},
         }) {
        INFO(k.cmd);
        auto t = only_moves(k.cmd);
        if (!k.text) {
            CHECK_FALSE(t);
            continue;
        }
        REQUIRE(t);
        CHECK(*t == k.text);
        CHECK(is_moves_text(*t));  // written twice, the same
    }
    CHECK_FALSE(is_moves_text("cd sub"));
    CHECK_FALSE(is_moves_text("builtin cd sub"));
    CHECK_FALSE(is_moves_text("builtin cd './sub' "));
}

TEST_CASE("no builtin but a literal move is kept in the agent's shell", "[shell-state]") {
    // Every one of these evaluates something the command controls, or reads the shell's state
    // in a way the hook cannot see: it runs in the cage.
    for (const char* c :
         {"pwd", "echo hi", "true", ":", "test -d x", "[ -f a ]", "export A=1", "A=1", "unset A", "set -e",
          "shopt -s extglob", "test -v 'a[$(id)]'", "printf -v 'a[$(id)]' x", "unset 'a[$(id)]'",
          "declare 'a[$(id)]=1'", "read 'a[$(id)]' <<<x", "let 'a[$(id)]'", "(( a[$(id)] ))",
          "[[ -v a[$(id)] ]]", "shift $((1))", "printf '%d' 'a[$(id)]'", "set -x", "trap id DEBUG",
          "alias cd=id", "cd() { id; }", "enable -f x.so x", "hash -p /ws/x ls", "export PROMPT_COMMAND=id",
          "export BASH_ENV=/ws/x", "export PATH=/ws:$PATH", "export LD_PRELOAD=/ws/x.so", "CDPATH=/ws",
          "cd", "cd -", "cd ~", "cd ~/src", "cd $HOME", "cd $(pwd)", "cd `pwd`", "cd s*", "cd {a,b}", "cd -P sub",
          "cd -L sub", "cd sub >/dev/null", "cd sub 2>&1", "pushd", "pushd +1", "popd +1", "popd -n",
          "cd sub; cd x", "cd sub || cd x", "cd sub &", "! cd sub", "time cd sub", "cd sub | cat",
          "A=1 cd sub", "cd a b", "cd ''", "builtin", "command cd sub", "cd sub && ls", "",
          "cd 'unterminated"}) {
        INFO(c);
        CHECK_FALSE(only_moves(c));
    }
}

TEST_CASE("leading moves run in the agent's shell in toolcage's words; the rest goes in the cage",
          "[shell-state]") {
    struct Case {
        const char* cmd;
        const char* outside;
        const char* inside;
    };
    for (const Case& k : std::initializer_list<Case>{
             {"cd sub && ls", "builtin cd './sub'", "ls"},
             {"cd a && cd b && ls -la", "builtin cd './a' && builtin cd './b'", "ls -la"},
             {"cd 'my dir' && git status", "builtin cd './my dir'", "git status"},
             {"cd x && export A='a&&b' && make && ls", "builtin cd './x'", "export A='a&&b' && make && ls"},
             {"pushd sub && ls; popd", "builtin pushd './sub'", "ls; popd"},
             {"cd sub &&\n  ls", "builtin cd './sub'", "\n  ls"},
             {"cd sub && test -v 'a[$(id)]'", "builtin cd './sub'", "test -v 'a[$(id)]'"},
             {"cd 'a&&b' && ls", "builtin cd './a&&b'", "ls"},
         }) {
        INFO(k.cmd);
        auto s = split_shell_state(k.cmd);
        REQUIRE(s);
        CHECK(s->outside == k.outside);
        CHECK(s->inside == k.inside);
    }
}

TEST_CASE("no split unless the command starts with literal moves joined by && to a rest", "[shell-state]") {
    for (const char* c : {"ls", "cd sub", "cd $D && ls", "cd $(git rev-parse --show-toplevel) && ls",
                          "cd sub; ls", "cd sub || ls", "cd sub && ls &", "echo hi && ls", "cd sub > /dev/null && ls",
                          "export A=1 && ls", "export LD_PRELOAD=x.so && ls", "! cd sub && ls", "unset A && ls",
                          "set -x && ls", "cd sub | cat && ls", "pwd && ls", "cd ~/src && make", "cd - && ls",
                          "test -v 'a[$(id)]' && ls", "cd sub && "}) {
        INFO(c);
        CHECK_FALSE(split_shell_state(c));
    }
}

TEST_CASE("bash moves the agent's shell by the prefix and runs the rest where it moved", "[shell-state]") {
    toolcage::test::TempDir dir;
    toolcage::test::make_dirs(dir / "sub");
    toolcage::test::make_dirs(dir / "elsewhere/sub");
    // Stands in for toolcage: prints where it runs and its last argument.
    std::string fake = dir / "toolcage";
    toolcage::test::write_file(fake, "#!/bin/bash\nprintf '%s|%s\\n' \"$PWD\" \"${@: -1}\"\n");
    REQUIRE(::chmod(fake.c_str(), 0755) == 0);
    std::string rw = toolcage::hook::cage_rewrite(
        toolcage::hook::CageRewrite{fake, "default", "0123456789abcdef", dir.path(), dir.path(), true, "cd sub && export A=1 && ls", ""});
    // One shell, as the agent keeps it, with a function named cd and a CDPATH that would lead
    // elsewhere: after the call its cwd is sub, and the export stayed in the cage.
    const std::string shell_state = "cd() { echo hijacked; }; CDPATH='" + dir.path() + "/elsewhere'; ";
    auto r = toolcage::test::run_binary(
        "/bin/bash", {"-c", shell_state + "builtin cd '" + dir.path() + "' && " + rw + " && pwd && echo \"A=$A\""},
        "", {{"PATH", "/usr/bin:/bin"}});
    INFO(rw);
    CHECK(r.exit_code == 0);
    CHECK(r.out == dir.path() + "/sub|export A=1 && ls\n" + dir.path() + "/sub\nA=\n");
}

TEST_CASE("the step starts where the leading moves take the shell, computed as bash's cd does", "[shell-state]") {
    const std::string cwd = "/w/root";
    CHECK(cwd_after_moves("make test", cwd) == cwd);
    CHECK(cwd_after_moves("cd proj && make test", cwd) == "/w/root/proj");
    CHECK(cwd_after_moves("cd proj && cd src && make", cwd) == "/w/root/proj/src");
    CHECK(cwd_after_moves("cd /abs/p && make", cwd) == "/abs/p");
    CHECK(cwd_after_moves("pushd proj && make", cwd) == "/w/root/proj");
    // Logical, as bash's default cd: `..` takes off the last name written.
    CHECK(cwd_after_moves("cd proj/.. && make", cwd) == "/w/root");
    CHECK(cwd_after_moves("cd ../.. && make", cwd) == "/");
    // A move it cannot follow: the stack.
    CHECK_FALSE(cwd_after_moves("popd && make", cwd).has_value());
    // What is not a literal move is no move: the step starts where the call is.
    CHECK(cwd_after_moves("cd $DIR && make", cwd) == cwd);
    CHECK(cwd_after_moves("cd ~/p && make", cwd) == cwd);
    CHECK(cwd_after_moves("cd - && make", cwd) == cwd);
    CHECK(cwd_after_moves("cd proj; make", cwd) == cwd);
    CHECK(cwd_after_moves("cd proj || make", cwd) == cwd);
    CHECK(cwd_after_moves("cd proj", cwd) == cwd);  // moves alone run in the agent's shell
}
