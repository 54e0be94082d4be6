#!/usr/bin/env bash
# From Hermes terminal payloads to a built and tested project: `git clone` of a local bare
# repository, `make` and `make test`, each caged by the hook under the default policy (no
# network) and run with bash as the agent would. A caged curl to a loopback listener fails.
# Usage: git_make.sh TOOLCAGE_BIN
set -euo pipefail
TOOLCAGE="${1:?usage: git_make.sh TOOLCAGE_BIN}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
POLICY="$HERE/../../profiles/default.json"
[ -f "$POLICY" ] || fail "no default policy at $POLICY"
for tool in git make cc curl node; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed for this test"
done

make_work gitmake
WS="$WORK/ws"
HOME_DIR="$WORK/home"
SRC="$WORK/src"
mkdir -p "$WS" "$HOME_DIR" "$SRC"

# A small C project with its own tests, committed into a bare repository in the workspace
# (the cage reads the workspace, nothing else of $WORK).
cat > "$SRC/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

int add(int a, int b) { return a + b; }

int main(int argc, char** argv) {
    if (argc == 3) {
        printf("%d\n", add(atoi(argv[1]), atoi(argv[2])));
        return 0;
    }
    puts("usage: adder A B");
    return 2;
}
C
cat > "$SRC/test.sh" <<'SH'
#!/bin/sh
# Each case: arguments and the expected sum.
set -e
check() {
    got=$(./adder "$1" "$2")
    [ "$got" = "$3" ] || { echo "adder $1 $2: got $got, want $3"; exit 1; }
}
check 2 3 5
check -4 4 0
check 100 23 123
echo "3 tests passed"
SH
printf 'adder: main.c\n\t$(CC) -O2 -Wall -o $@ main.c\n\ntest: adder\n\tsh ./test.sh\n\n.PHONY: test\n' \
    > "$SRC/Makefile"
git -C "$SRC" init -q
git -C "$SRC" -c user.name=t -c user.email=t@t add .
git -C "$SRC" -c user.name=t -c user.email=t@t commit -qm "adder"
git clone -q --bare "$SRC" "$WS/origin.git"

start_node_helper listener "$HERE/listener.mjs"
PORT=$HELPER_PORT
# The listener answers from outside the cage: a refusal inside is the cage's doing.
[ "$(curl -sS "http://127.0.0.1:$PORT/outside")" = reached ] || fail "the loopback listener does not answer"

# step WORKDIR COMMAND: payload -> hook -> rewrite -> bash; fails unless the step succeeded.
step() {
    local wd="$1" command="$2" rewrite
    rewrite=$(hermes_rewrite "$POLICY" "$command" "$wd")
    case "$rewrite" in
        *" run "*"--policy"*) ;;
        *) fail "the rewrite of \"$command\" is not a toolcage run: $rewrite" ;;
    esac
    run_as_agent "$wd" "$HOME_DIR" "$rewrite"
    echo "--- $command (exit $RUN_RC) ---"
    echo "$RUN_OUT"
}

step "$WS" "git clone origin.git project"
[ "$RUN_RC" -eq 0 ] || fail "the caged git clone exited $RUN_RC"
[ -f "$WS/project/main.c" ] || fail "the clone has no main.c"

P="$WS/project"
step "$P" "make"
[ "$RUN_RC" -eq 0 ] || fail "the caged make exited $RUN_RC"
[ -x "$P/adder" ] || fail "make did not build ./adder"
[ "$("$P/adder" 20 22)" = 42 ] || fail "the built adder computes the wrong sum"

step "$P" "make test"
[ "$RUN_RC" -eq 0 ] || fail "the caged make test exited $RUN_RC"
grep -q '^3 tests passed$' <<<"$RUN_OUT" || fail "make test did not report its tests passing"

# The cage seen from inside the same kind of step: no_new_privs, and no network.
step "$P" "grep NoNewPrivs /proc/self/status; curl -sS -m 5 http://127.0.0.1:$PORT/inside; echo \"curl-exit=\$?\""
grep -Eq '^NoNewPrivs:[[:space:]]+1$' <<<"$RUN_OUT" || fail "the step did not run with no_new_privs"
grep -q '^reached$' <<<"$RUN_OUT" && fail "the caged curl reached the loopback listener"
grep -q '^curl-exit=0$' <<<"$RUN_OUT" && fail "the caged curl succeeded"
grep -Eq '^curl-exit=[1-9][0-9]*$' <<<"$RUN_OUT" || fail "the caged curl did not run"
grep -q /inside "$WORK/listener.log" && fail "the listener saw a request from inside the cage"
# toolcage's own state (the step journal, written by the supervisor outside the cage) aside.
wrote=$(cd "$HOME_DIR" && find . -mindepth 1 ! -path ./.local ! -path ./.local/state ! -path './.local/state/toolcage*')
[ -z "$wrote" ] || fail "the steps wrote into \$HOME: $wrote"
echo "PASS: clone, make and make test ran caged; the cage could not reach 127.0.0.1:$PORT"
