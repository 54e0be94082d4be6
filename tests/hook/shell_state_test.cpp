// The agent's shell state around a rewrite: builtins alone run as sent, leading cd/export stay in
// the agent's shell, and bash really moves there while the rest runs elsewhere.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "hook/decision/rewrite.h"
#include "hook/decision/shell_state.h"
#include "run_binary.h"

using toolcage::hook::only_shell_state;
using toolcage::hook::split_shell_state;

TEST_CASE("commands of shell builtins alone run as sent", "[shell-state]") {
    for (const char* c : {"cd sub", "cd ~/src/x && pwd", "pwd", "echo hi", "echo $HOME", "export A=1",
                          "cd .. && export A=b && pwd", "test -d x && echo yes", "[ -f a ] || echo no",
                          "true", "printf '%s\\n' a", "type ls", "command -v git", "set -e", "A=1",
                          "echo a 2>/dev/null", "echo a >/dev/null 2>&1", "pushd /tmp", "popd", "dirs"}) {
        INFO(c);
        CHECK(only_shell_state(c));
    }
}

TEST_CASE("anything that runs a program, writes a file or changes what later commands load is not shell state",
          "[shell-state]") {
    for (const char* c : {"ls", "cd sub && ls", "echo $(id)", "echo `id`", "echo hi > f", "echo hi >> /tmp/x",
                          "command ls", "source ./env.sh", ". x", "eval ls", "exec ls", "alias ls='rm -rf ~'",
                          "export LD_PRELOAD=/ws/x.so", "export BASH_ENV=/ws/x", "export PROMPT_COMMAND=id",
                          "export HOME=/ws", "export PATH=/ws/bin:$PATH", "export TOOLCAGE_LOG=/ws/l", "XDG_STATE_HOME=/ws",
                          "export -f f", "LD_LIBRARY_PATH=/ws cd x", "f() { ls; }", "if true; then echo; fi",
                          "echo ${x:-$(id)}", "echo a &", "cat <<<x", "umask 000", "trap 'ls' EXIT", "set -- $(id)",
                          "echo <(id)", "", "cd 'unterminated"}) {
        INFO(c);
        CHECK_FALSE(only_shell_state(c));
    }
}

TEST_CASE("leading cd and export stay in the agent's shell; the rest goes in the cage", "[shell-state]") {
    struct Case {
        const char* cmd;
        const char* outside;
        const char* inside;
    };
    for (const Case& k : std::initializer_list<Case>{
             {"cd sub && ls", "cd sub", "ls"},
             {"cd a && cd b && ls -la", "cd a && cd b", "ls -la"},
             {"cd 'my dir' && git status", "cd 'my dir'", "git status"},
             {"cd ~/src && make", "cd ~/src", "make"},
             {"export A=1 && make", "export A=1", "export A=1 && make"},
             {"cd x && export A='a&&b' && make && ls", "cd x && export A='a&&b'", "export A='a&&b' && make && ls"},
             {"pushd sub && ls; popd", "pushd sub", "ls; popd"},
             {"cd sub &&\n  ls", "cd sub", "\n  ls"},
         }) {
        INFO(k.cmd);
        auto s = split_shell_state(k.cmd);
        REQUIRE(s);
        CHECK(s->outside == k.outside);
        CHECK(s->inside == k.inside);
    }
}

TEST_CASE("no split when the leading builtins depend on run time or the rest is not joined by &&",
          "[shell-state]") {
    for (const char* c : {"ls", "cd sub", "cd $D && ls", "cd $(git rev-parse --show-toplevel) && ls",
                          "cd sub; ls", "cd sub || ls", "cd sub && ls &", "echo hi && ls", "cd sub > /dev/null && ls",
                          "export A=$(id) && ls", "export LD_PRELOAD=x.so && ls", "! cd sub && ls",
                          "cd sub | cat && ls", "pwd && ls"}) {
        INFO(c);
        CHECK_FALSE(split_shell_state(c));
    }
}

TEST_CASE("bash moves the agent's shell by the prefix and runs the rest where it moved", "[shell-state]") {
    toolcage::test::TempDir dir;
    toolcage::test::make_dirs(dir / "sub");
    // Stands in for toolcage: prints where it runs and its last argument.
    std::string fake = dir / "toolcage";
    toolcage::test::write_file(fake, "#!/bin/bash\nprintf '%s|%s\\n' \"$PWD\" \"${@: -1}\"\n");
    REQUIRE(::chmod(fake.c_str(), 0755) == 0);
    std::string rw = toolcage::hook::cage_rewrite(
        toolcage::hook::CageRewrite{fake, "default", dir.path(), dir.path(), true, "cd sub && export A=1 && ls"});
    // One shell, as the agent keeps it: after the call, its cwd is sub.
    auto r = toolcage::test::run_binary("/bin/bash", {"-c", "cd '" + dir.path() + "' && " + rw + " && pwd && echo \"A=$A\""},
                                        "", {{"PATH", "/usr/bin:/bin"}});
    INFO(rw);
    CHECK(r.exit_code == 0);
    CHECK(r.out == dir.path() + "/sub|export A=1 && ls\n" + dir.path() + "/sub\nA=1\n");
}
