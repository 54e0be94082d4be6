#!/usr/bin/env bash
# Allowed commands run in the read-only cage: each way a stranger's repository makes a read-only
# program run its code (a submodule's core.fsmonitor under `git status`, an ext:: remote under
# `git ls-remote`, .mvn/jvm.config under `mvn -v`, a json.py under `python3 -c 'import json'`, a
# conftest.py under `pytest --collect-only`) is first shown to work bare, then run as Claude
# Code would run the hook's answer: its writes to a canary outside and inside the workspace fail
# and its network is closed, while the legitimate output of `git status`, `ls`, `grep`, `cat` is
# what it is bare. Then a workspace is never a home: `toolcage run` refuses /, $HOME and its
# parent; a dotfiles .git in the home does not widen the workspace (the project below it is the
# workspace, and a caged step cannot write the home); in the home itself the hook asks.
# Run for a HOME under /tmp and under /home, as root and as an unprivileged user.
# Usage: read_only_escapes.sh TOOLCAGE_BINARY   (exit 77 when it cannot run here)
set -euo pipefail

if [ "${1:-}" = "--inner" ]; then TOOLCAGE="$2"; else TOOLCAGE=$(readlink -f "$1"); fi
PY=/usr/bin/python3
fail() { echo "FAIL [$LAYOUT/$(id -un)]: $*" >&2; exit 1; }
ok() { echo "ok   [$LAYOUT/$(id -un)]: $*"; }
note() { echo "note [$LAYOUT/$(id -un)]: $*"; }

# ---- inside one layout, as one user ---------------------------------------------------------
# BASE: a directory of this user's; HOME=$BASE/home; the workspace is $HOME/proj.
inner() {
    BASE="$1"
    # toolcage's state (and $TOOLCAGE_LOG, which must lie in it) follows the user database's
    # home, not HOME: the real home's, or /tmp/toolcage-state-<uid> for a user without one; the
    # suite's own ($TOOLCAGE_STATE_DIR) under CTest when it is this user's.
    local real_home state
    real_home=$(getent passwd "$(id -u)" | cut -d: -f6)
    if [ -d "$real_home" ]; then state="$real_home/.local/state/toolcage"; else state="/tmp/toolcage-state-$(id -u)"; fi
    if [ -n "${TOOLCAGE_STATE_DIR:-}" ] && [ -O "$TOOLCAGE_STATE_DIR" ]; then state=$TOOLCAGE_STATE_DIR; fi
    export HOME="$BASE/home" TOOLCAGE_LOG="$state/test-logs/$(basename "$BASE").jsonl"
    export PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
    WS="$HOME/proj"
    OUT="$BASE/outside-canary"
    IN="$WS/inside-canary"
    mkdir -p "$HOME/.ssh" "$WS"
    echo "PRIVATE KEY" >"$HOME/.ssh/id_ed25519"
    chmod 600 "$HOME/.ssh/id_ed25519"
    git_id=(-c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main -c protocol.file.allow=always)

    # The hook's answer for a Claude Code Bash call: prints the command Claude Code runs.
    claude_run_cmd() {
        local cmd="$1" cwd="$2" answer
        answer=$("$PY" -c 'import json,sys; print(json.dumps({"hook_event_name":"PreToolUse","tool_name":"Bash",
"tool_input":{"command":sys.argv[1],"description":"d"},"cwd":sys.argv[2],"session_id":"s"}))' "$cmd" "$cwd" |
            "$TOOLCAGE" hook --agent claude) || fail "hook exited $? for: $cmd"
        "$PY" -c '
import json, sys
h = json.loads(sys.argv[1])["hookSpecificOutput"]
if h["permissionDecision"] != "allow": sys.exit("not allowed: " + sys.argv[1])
print(h.get("updatedInput", {}).get("command", sys.argv[2]))' "$answer" "$cmd"
    }
    # run_hooked CMD CWD: as Claude Code runs it (its shell in CWD); output in RUN_OUT.
    run_hooked() {
        local rw
        rw=$(claude_run_cmd "$1" "$2")
        case "$rw" in *" run --policy "*"--read-only"*) ;; *) fail "not the read-only cage: $1 -> $rw" ;; esac
        RUN_OUT=$(cd "$2" && bash -c "$rw" 2>&1) || true
    }
    run_bare() { RUN_OUT=$(cd "$2" && bash -c "$1" 2>&1) || true; }
    canaries_clear() { rm -f "$OUT" "$IN"; }
    expect_escape_bare() {  # the plant really works when nothing stands in the way
        [ -e "$OUT" ] || fail "$1: bare, the planted code did not run (the test proves nothing): $RUN_OUT"
        canaries_clear
    }
    expect_contained() {
        [ ! -e "$OUT" ] || fail "$1: the canary outside the workspace was written in the read-only cage"
        [ ! -e "$IN" ] || fail "$1: the canary inside the workspace was written in the read-only cage"
        case "$RUN_OUT" in *net-open*) fail "$1: the network was open in the read-only cage" ;; esac
        ok "$1: contained (no write outside or inside the workspace, no network)"
    }

    # A TCP listener on loopback, for the planted code to try.
    "$PY" -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(600)
try:
    while True: s.accept()[0].close()
except Exception: pass' "$BASE/port" &
    LISTENER=$!
    trap 'kill $LISTENER 2>/dev/null || true' EXIT
    for _ in $(seq 50); do [ -s "$BASE/port" ] && break; sleep 0.1; done
    PORT=$(cat "$BASE/port")
    # What each plant runs: write both canaries, try the network.
    cat >"$BASE/payload.py" <<EOF
import socket
for p in ("$OUT", "$IN"):
    try:
        open(p, "w").write("pwned")
    except OSError as e:
        print("write refused:", p, e)
try:
    socket.create_connection(("127.0.0.1", $PORT), timeout=2).close()
    print("net-open")
except OSError as e:
    print("net-closed:", e)
EOF
    cat >"$BASE/payload.sh" <<EOF
#!/bin/sh
/usr/bin/python3 "$BASE/payload.py"
exit 1
EOF
    chmod 755 "$BASE/payload.sh"

    # ---- the workspace: a repository with a submodule, a change, files to read --------------
    git "${git_id[@]}" init -q "$BASE/subsrc"
    echo sub >"$BASE/subsrc/s.txt"
    git "${git_id[@]}" -C "$BASE/subsrc" add s.txt
    git "${git_id[@]}" -C "$BASE/subsrc" commit -qm s
    git "${git_id[@]}" init -q "$WS"
    printf 'hello\nTODO: fix\n' >"$WS/a.txt"
    git "${git_id[@]}" -C "$WS" add a.txt
    git "${git_id[@]}" -C "$WS" commit -qm a
    git "${git_id[@]}" -C "$WS" submodule add -q "$BASE/subsrc" sub >/dev/null 2>&1 ||
        fail "git submodule add failed"
    git "${git_id[@]}" -C "$WS" commit -qm sub
    echo changed >>"$WS/a.txt"

    # ---- the legitimate path: output unchanged ----------------------------------------------
    for cmd in "git status" "ls" "ls -la sub" "grep -rn TODO ." "cat a.txt" "git diff --stat" "git log --oneline"; do
        run_bare "$cmd" "$WS"
        local bare="$RUN_OUT"
        run_hooked "$cmd" "$WS"
        [ "$RUN_OUT" = "$bare" ] || fail "\`$cmd\` prints differently in the read-only cage:
--- bare
$bare
--- read-only cage
$RUN_OUT"
    done
    case "$RUN_OUT" in *"commit"*|*" a"*|*" sub"*) ;; esac
    run_hooked "git status" "$WS"
    case "$RUN_OUT" in *"modified:   a.txt"*) ok "git status reports the change in the read-only cage" ;;
        *) fail "git status in the read-only cage does not report the change: $RUN_OUT" ;; esac
    # The home outside the workspace is not the read-only cage's to read (the classifier
    # refuses `cat ~/.ssh/id_ed25519` outright; a file it has no name for is the cage's).
    echo "home secret" >"$HOME/notes.txt"
    run_bare "cat ~/notes.txt" "$WS"
    [ "$RUN_OUT" = "home secret" ] || fail "bare cat of ~/notes.txt: $RUN_OUT"
    run_hooked "cat ~/notes.txt" "$WS"
    case "$RUN_OUT" in *"home secret"*) fail "the read-only cage read ~/notes.txt" ;; esac
    ok "the home outside the workspace cannot be read in the read-only cage"
    # cd moves the agent's shell even so: the rewrite keeps it outside.
    rw=$(claude_run_cmd "cd sub && ls" "$WS")
    RUN_OUT=$(cd "$WS" && bash -c "$rw && pwd" 2>&1) || true
    [ "$RUN_OUT" = "$(printf 's.txt\n%s/sub' "$WS")" ] || fail "cd sub && ls; pwd: $RUN_OUT"
    ok "cd sub && ls lists sub and leaves the shell in sub"

    # ---- 1. a submodule's core.fsmonitor, reached through core.worktree --------------------
    canaries_clear
    git -C "$WS" config --file "$WS/.git/modules/sub/config" core.fsmonitor "$BASE/payload.sh"
    run_bare "git status" "$WS"
    expect_escape_bare "submodule core.fsmonitor under git status"
    run_hooked "git status" "$WS"
    expect_contained "submodule core.fsmonitor under git status"
    case "$RUN_OUT" in *"modified:   a.txt"*) ;; *) fail "git status (planted) lost its output: $RUN_OUT" ;; esac
    # The same submodule, reached only through core.worktree pointing at another tree.
    mkdir -p "$BASE/tree2"
    cp -r "$WS/sub" "$BASE/tree2/sub"
    echo "gitdir: $WS/.git/modules/sub" >"$BASE/tree2/sub/.git"
    cp "$WS/a.txt" "$WS/.gitmodules" "$BASE/tree2/"
    git -C "$WS" config --file "$WS/.git/modules/sub/config" core.worktree "$BASE/tree2/sub"
    rm -rf "$WS/sub"
    git -C "$WS" config core.worktree "$BASE/tree2"
    run_bare "git status" "$WS"
    expect_escape_bare "core.worktree -> submodule core.fsmonitor under git status"
    run_hooked "git status" "$WS"
    expect_contained "core.worktree -> submodule core.fsmonitor under git status"
    grep -q '"rule":"git.config-runs-code"' "$TOOLCAGE_LOG" || fail "the hook's git check did not follow core.worktree"
    git -C "$WS" config --unset core.worktree
    git -C "$WS" config --file "$WS/.git/modules/sub/config" --unset core.fsmonitor
    git -C "$WS" config --file "$WS/.git/modules/sub/config" core.worktree ../../../sub
    cp -r "$BASE/tree2/sub" "$WS/sub"

    # ---- 2. an ext:: remote under git ls-remote ----------------------------------------------
    canaries_clear
    git -C "$WS" config protocol.allow always
    git -C "$WS" remote add origin "ext::$BASE/payload.sh"
    run_bare "git ls-remote origin" "$WS"
    expect_escape_bare "ext:: remote under git ls-remote"
    run_hooked "git ls-remote origin" "$WS"
    expect_contained "ext:: remote under git ls-remote"
    git -C "$WS" remote remove origin
    git -C "$WS" config --unset protocol.allow

    # ---- 3. json.py in the cwd under python3 -c 'import json' ------------------------------
    canaries_clear
    printf 'exec(open("%s").read())\n' "$BASE/payload.py" >"$WS/json.py"
    run_bare "python3 -c 'import json'" "$WS"
    expect_escape_bare "json.py under python3 -c 'import json'"
    run_hooked "python3 -c 'import json'" "$WS"
    expect_contained "json.py under python3 -c 'import json'"
    rm "$WS/json.py"
    run_hooked "python3 -c 'import json; print(json.dumps([1]))'" "$WS"
    [ "$RUN_OUT" = "[1]" ] || fail "python3 -c in the read-only cage: $RUN_OUT"

    # ---- 4. .mvn/jvm.config under mvn -v ------------------------------------------------------
    if command -v mvn >/dev/null && command -v java >/dev/null; then
        canaries_clear
        mkdir -p "$WS/.mvn"
        # (-XX:-UsePerfData: the bare control run leaves no /tmp/hsperfdata_<user> behind)
        echo "-XX:-UsePerfData -Xlog:gc:file=$OUT -Xlog:safepoint:file=$IN" >"$WS/.mvn/jvm.config"
        run_bare "mvn -v" "$WS"
        expect_escape_bare ".mvn/jvm.config under mvn -v"
        run_hooked "mvn -v" "$WS"
        expect_contained ".mvn/jvm.config under mvn -v"
        rm -rf "$WS/.mvn"
        run_hooked "mvn -v" "$WS"
        case "$RUN_OUT" in *"Apache Maven"*) ok "mvn -v prints its version in the read-only cage" ;;
            *) fail "mvn -v does not run in the read-only cage: ${RUN_OUT:0:300}" ;; esac
    else
        note "mvn or java missing: the .mvn/jvm.config case is skipped"
    fi

    # ---- 5. conftest.py under pytest --collect-only ------------------------------------------
    if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
        canaries_clear
        printf 'exec(open("%s").read())\n' "$BASE/payload.py" >"$WS/conftest.py"
        printf 'def test_a():\n    pass\n' >"$WS/test_a.py"
        run_bare "python3 -m pytest --collect-only -q -p no:cacheprovider" "$WS"
        expect_escape_bare "conftest.py under pytest --collect-only"
        run_hooked "python3 -m pytest --collect-only -q -p no:cacheprovider" "$WS"
        expect_contained "conftest.py under pytest --collect-only"
        rm "$WS/conftest.py"
    else
        note "pytest is not installed for /usr/bin/python3: the conftest.py case is skipped"
    fi
    # ---- a workspace is never a home -----------------------------------------------------
    for wd in "$HOME" / "$(dirname "$HOME")"; do
        if out=$(cd "$WS" && "$TOOLCAGE" run --workdir "$wd" -- /bin/true 2>&1); then
            fail "toolcage run --workdir $wd was not refused"
        fi
        case "$out" in *"cannot be a workspace"*) ;; *) fail "--workdir $wd: $out" ;; esac
        if out=$(cd "$WS" && "$TOOLCAGE" run --workspace "$wd" -- /bin/true 2>&1); then
            fail "toolcage run --workspace $wd was not refused"
        fi
    done
    ok "toolcage run refuses /, the home and its parent as a workspace"
    # A dotfiles repository in the home does not widen the workspace: the project below is it.
    git "${git_id[@]}" init -q "$HOME"
    mkdir -p "$HOME/proj2/src"
    echo '{}' >"$HOME/proj2/package.json"
    rw=$(claude_run_cmd "make" "$HOME/proj2/src")
    case "$rw" in *"--workspace '$HOME/proj2' "*) ;; *) fail "dotfiles .git: the workspace is not proj2: $rw" ;; esac
    rw=$(claude_run_cmd "touch ~/.bashrc-canary" "$HOME/proj2/src")
    RUN_OUT=$(cd "$HOME/proj2/src" && bash -c "$rw" 2>&1) || true
    [ ! -e "$HOME/.bashrc-canary" ] || fail "a caged step under a dotfiles repository wrote the home"
    # In the home itself there is no workspace, nor one a person could approve: refused.
    answer=$("$PY" -c 'import json,sys; print(json.dumps({"hook_event_name":"PreToolUse","tool_name":"Bash",
"tool_input":{"command":"make"},"cwd":sys.argv[1],"session_id":"s"}))' "$HOME" | "$TOOLCAGE" hook --agent claude)
    case "$answer" in *'"permissionDecision":"deny"'*hook.no-workspace*) ;; *) fail "make in the home: $answer" ;; esac
    rm -rf "$HOME/.git"
    ok "a dotfiles .git in the home does not widen the workspace; in the home itself the hook refuses"
    echo "PASS [$LAYOUT/$(id -un)]"
}

if [ "${1:-}" = "--inner" ]; then
    TOOLCAGE="$2"
    LAYOUT="$3"
    inner "$4"
    exit 0
fi

# ---- the layouts and users ------------------------------------------------------------------
LAYOUT=setup
command -v git >/dev/null || { echo "SKIP: git is missing"; exit 77; }
[ -x "$PY" ] || { echo "SKIP: $PY is missing"; exit 77; }
dirs=()
cleanup() { for d in "${dirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT
self=$(readlink -f "$0")
# The binary must be reachable by the unprivileged user too, and the build tree may sit in a
# home only its owner can enter (/root is 0700): every run uses a copy under /tmp, with the
# relay and the shipped policies beside it as installed.
bin_dir=$(mktemp -d /tmp/toolcage-ro-bin-XXXXXX)
dirs+=("$bin_dir")
built=$(dirname "$TOOLCAGE")
cp "$TOOLCAGE" "$bin_dir/toolcage"
[ -e "$built/toolcage-relay" ] && cp "$built/toolcage-relay" "$bin_dir/"
[ -d "$built/share" ] && cp -r "$built/share" "$bin_dir/"
cp "$self" "$bin_dir/read_only_escapes.sh"  # the unprivileged run reads this script too
chmod -R u=rwX,go=rX "$bin_dir"
TOOLCAGE="$bin_dir/toolcage"
self="$bin_dir/read_only_escapes.sh"
# HOME under /home: a directory of its own there for root; an ordinary user, who cannot write
# /home, uses their own home directory (/home/NAME on most machines).
own_home=$(getent passwd "$(id -u)" | cut -d: -f6)
for layout in tmp home; do
    for who in root nobody; do
        if [ "$layout" = tmp ]; then
            base=$(mktemp -d /tmp/toolcage-ro-XXXXXX)
        elif [ -w /home ]; then
            base=$(mktemp -d /home/toolcage-ro-XXXXXX)
        elif [ -n "$own_home" ] && [ -w "$own_home" ]; then
            base=$(mktemp -d "$own_home/toolcage-ro-XXXXXX")
        else
            echo "note: neither /home nor this user's home is writable: the /home layout is skipped"
            continue
        fi
        dirs+=("$base")
        if [ "$who" = root ]; then
            # In a subshell whoever runs it: inner's EXIT trap (its listener) must not replace
            # this shell's cleanup, nor outlive the layout holding ctest's pipe.
            (LAYOUT=$layout inner "$base")
        else
            if [ "$(id -u)" != 0 ]; then
                echo "note [$layout]: not root: the run as another unprivileged user (nobody) needs root to switch user; this user's run above is the unprivileged one"
                continue
            fi
            command -v setpriv >/dev/null || { echo "note: setpriv missing, the unprivileged run is skipped"; continue; }
            # Under ctest, nobody's state goes to a state directory of the suite's (in the layout,
            # removed with it), not to /tmp/toolcage-state-65534.
            nobody_state=()
            if [ -n "${TOOLCAGE_STATE_DIR:-}" ]; then
                mkdir -m 700 "$base/.toolcage-state"
                (umask 077 && : > "$base/.toolcage-state/.toolcage-test-state")
                chown -R 65534:65534 "$base/.toolcage-state"
                nobody_state=("TOOLCAGE_STATE_DIR=$base/.toolcage-state")
            fi
            chown 65534:65534 "$base"
            chmod 755 "$base"
            setpriv --reuid=65534 --regid=65534 --clear-groups \
                env -i PATH=/usr/bin:/bin ${nobody_state[@]+"${nobody_state[@]}"} bash "$self" --inner "$TOOLCAGE" "$layout" "$base"
        fi
    done
done
if [ "$(id -u)" = 0 ]; then
    echo "PASS: every escape is contained, as root and unprivileged, with HOME under /tmp and /home"
else
    echo "PASS: every escape is contained, as $(id -un) (not root: no run as nobody), with HOME under /tmp and $own_home"
fi
