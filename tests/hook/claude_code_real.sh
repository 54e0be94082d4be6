#!/usr/bin/env bash
# A real Claude Code, installed with npm, in -p mode against a loopback mock of the Messages
# API, with `toolcage hook` installed as its PreToolUse hook in the project's settings:
#  - a destructive Bash command is blocked and its target survives;
#  - a risky one runs through the cage rewrite (once `toolcage run` exists it really runs
#    caged, seen from inside: Seccomp 2 and NoNewPrivs 1; before that, the rewrite's own
#    `toolcage run` is what Claude Code executed, seen in the tool result);
#  - `cd sub && ls`, then a read-only command, then `pwd`: ls lists sub in the read-only cage,
#    the read-only command shows the cage's seccomp and no_new_privs, and pwd shows sub.
# Exit 77 (skip) when npm is absent or the registry cannot be reached. Needs TOOLCAGE_BIN and
# TOOLCAGE_SOURCE_DIR.
set -euo pipefail

if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP: npm is not installed"
    exit 77
fi
: "${TOOLCAGE_BIN:?set TOOLCAGE_BIN to the built toolcage}"
: "${TOOLCAGE_SOURCE_DIR:?set TOOLCAGE_SOURCE_DIR to the source tree}"
HERE="$TOOLCAGE_SOURCE_DIR/tests/hook"

# In the build tree when the suite runs (TOOLCAGE_TEST_DIR), else /tmp.
mkdir -p "${TOOLCAGE_TEST_DIR:-/tmp}"
WORK=$(mktemp -d "${TOOLCAGE_TEST_DIR:-/tmp}/toolcage-claude-real-XXXXXX")
MOCK_PID=""
cleanup() {
    if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; fi
    if declare -F forget_claude_project >/dev/null; then forget_claude_project "${PROJECT:-}"; fi
    if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Claude Code, installed once per build tree (skipped when the registry cannot be reached).
skip() {
    echo "SKIP: $*"
    exit 77
}
trap 'exit 143' TERM INT HUP
source "$TOOLCAGE_SOURCE_DIR/tests/e2e/npm_claude_code.sh"
CACHE="${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}"
npm_claude_code "$CACHE"
echo "claude: $(timeout 30 "$CLAUDE" --version 2>/dev/null || echo unknown)"

HOME_DIR="$WORK/home"
PROJECT="$WORK/project"
mkdir -p "$HOME_DIR/precious" "$PROJECT/.claude"
echo "keep me" > "$HOME_DIR/precious/keep.txt"
git init -q "$PROJECT" 2>/dev/null || mkdir -p "$PROJECT/.git"
# $TOOLCAGE_LOG counts only under toolcage's state directory (the suite's own under CTest, else
# the user database's home's).
DECISIONS="${TOOLCAGE_STATE_DIR:-$(getent passwd "$(id -u)" | cut -d: -f6)/.local/state/toolcage}/test-logs/$(basename "$WORK").jsonl"

claude_hook_settings "$PROJECT/.claude/settings.json" "$TOOLCAGE_BIN"

# run_claude NAME COMMAND [COMMANDS_JSON]: one -p session whose model asks for Bash(COMMAND)
# once, or for each of COMMANDS_JSON in turn.
run_claude() {
    local name="$1" command="$2" commands="${3:-}"
    local log="$WORK/$name.requests.jsonl" portfile="$WORK/$name.port"
    MOCK_COMMAND="$command" MOCK_COMMANDS="$commands" node "$HERE/mock_anthropic.mjs" "$portfile" "$log" &
    MOCK_PID=$!
    for _ in $(seq 1 100); do [ -s "$portfile" ] && break; sleep 0.1; done
    [ -s "$portfile" ] || fail "the mock API did not start"
    local port
    port=$(cat "$portfile")
    set +e
    (cd "$PROJECT" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" TERM=dumb \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY="sk-ant-test-dummy-key" \
        TOOLCAGE_LOG="$DECISIONS" ${TOOLCAGE_STATE_DIR:+"TOOLCAGE_STATE_DIR=$TOOLCAGE_STATE_DIR"} DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 300 "$CLAUDE" -p "Run the command the task needs." --output-format json --max-turns 8 \
        >"$WORK/$name.out" 2>"$WORK/$name.err")
    local rc=$?
    set -e
    kill "$MOCK_PID" 2>/dev/null || true
    wait "$MOCK_PID" 2>/dev/null || true
    MOCK_PID=""
    echo "claude -p ($name) exited $rc"
    [ $rc -ne 124 ] || fail "claude -p ($name) timed out; stderr: $(head -c 2000 "$WORK/$name.err")"
}


decision_for() {  # the verdict toolcage logged for a command
    node -e '
const [file, cmd] = process.argv.slice(1);
const lines = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const hit = lines.filter((l) => l.agent === "claude" && l.command === cmd).pop();
console.log(hit ? hit.verdict : "none");' "$DECISIONS" "$1"
}

# 1. destructive: refused, the target survives
DESTRUCTIVE="rm -rf ~/precious"
run_claude destructive "$DESTRUCTIVE"
[ -s "$WORK/destructive.requests.jsonl" ] || fail "Claude Code never called the mock API: $(head -c 2000 "$WORK/destructive.err")"
[ -f "$HOME_DIR/precious/keep.txt" ] || fail "the destructive command ran: ~/precious is gone"
RESULT=$(claude_tool_results "$WORK/destructive.requests.jsonl")
echo "destructive tool result: $RESULT"
grep -q "toolcage" <<<"$RESULT" || fail "the tool result does not carry toolcage's refusal"
[ "$(decision_for "$DESTRUCTIVE")" = deny ] || fail "toolcage did not log a deny for $DESTRUCTIVE"

# 2. risky: runs through the rewrite
RISKY="python3 -c 'print(open(\"/proc/self/status\").read())' | grep -E '^(Seccomp|NoNewPrivs):'; echo RISKY-DONE"
run_claude risky "$RISKY"
RESULT=$(claude_tool_results "$WORK/risky.requests.jsonl")
echo "risky tool result: $RESULT"
[ "$(decision_for "$RISKY")" = cage ] || fail "toolcage did not log a cage verdict for the risky command"
if grep -q "RISKY-DONE" <<<"$RESULT"; then
    # It ran: it must have run inside the cage.
    grep -Eq 'Seccomp:[[:space:]]+2' <<<"$RESULT" || fail "the risky command ran without a seccomp filter"
    grep -Eq 'NoNewPrivs:[[:space:]]+1' <<<"$RESULT" || fail "the risky command ran without no_new_privs"
    echo "PASS: the risky command ran inside the cage"
else
    # No cage yet: what ran was the rewrite, i.e. toolcage run itself.
    grep -q "toolcage run" <<<"$RESULT" || fail "neither the caged command nor the rewrite ran"
    echo "PASS: Claude Code executed the cage rewrite (toolcage run is not available yet)"
fi
echo "PASS: destructive command blocked, target survived"

# 3. the agent's shell state: `cd sub && ls` runs ls in the read-only cage yet moves Claude
#    Code's shell, so the next call's `pwd` shows sub; a read-only command runs caged.
mkdir -p "$PROJECT/sub"
echo x > "$PROJECT/sub/inner-file.txt"
STATUS="grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status"
run_claude shell-state "cd sub && ls" "$(node -e 'console.log(JSON.stringify(process.argv.slice(1)))' \
    "cd sub && ls" "$STATUS" "pwd")"
RESULT=$(claude_tool_results "$WORK/shell-state.requests.jsonl")
echo "shell-state tool results: $RESULT"
[ "$(decision_for "cd sub && ls")" = allow ] || fail "toolcage did not log an allow for cd sub && ls"
[ "$(decision_for "$STATUS")" = allow ] || fail "toolcage did not log an allow for $STATUS"
grep -qx "inner-file.txt" <<<"$RESULT" || fail "cd sub && ls did not list sub"
grep -Eq 'Seccomp:[[:space:]]+2' <<<"$RESULT" || fail "the allowed command ran without the cage's seccomp filter"
grep -Eq 'NoNewPrivs:[[:space:]]+1' <<<"$RESULT" || fail "the allowed command ran without no_new_privs"
grep -qx "$PROJECT/sub" <<<"$RESULT" || fail "pwd after cd sub && ls does not show sub"
echo "PASS: cd sub && ls moved Claude Code's shell (pwd shows sub); allowed commands run read-only caged"

