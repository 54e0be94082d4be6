#!/usr/bin/env bash
# The real Claude Code that honours "onFailure" (2.1.332, pinned), in -p mode against a loopback
# mock of the Messages API, with toolcage's hook as `toolcage install claude` writes it:
#  - an approved ask runs caged: under a policy whose caged commands are asked about
#    ("on_cage": "ask"), a stand-in for the person (an MCP permission-prompt tool that approves
#    whatever it is shown) is shown toolcage's cage rewrite, and the command runs inside the cage
#    (seen from inside: Seccomp 2, NoNewPrivs 1);
#  - the installed entry with its command replaced by a program that crashes, hangs past the
#    entry's timeout or exits 1 blocks the call; the same program in an entry without
#    "onFailure" lets it run (so it is the entry that blocks, and the check can fail).
# Exit 77 (skip) when npm is absent or its registry cannot be reached. Needs TOOLCAGE_BIN and
# TOOLCAGE_SOURCE_DIR.
set -euo pipefail

CLAUDE_VERSION=2.1.332
if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP: npm is not installed"
    exit 77
fi
: "${TOOLCAGE_BIN:?set TOOLCAGE_BIN to the built toolcage}"
: "${TOOLCAGE_SOURCE_DIR:?set TOOLCAGE_SOURCE_DIR to the source tree}"
HERE="$TOOLCAGE_SOURCE_DIR/tests/hook"

mkdir -p "${TOOLCAGE_TEST_DIR:-/tmp}"
WORK=$(mktemp -d "${TOOLCAGE_TEST_DIR:-/tmp}/toolcage-claude-fail-closed-XXXXXX")
MOCK_PID=""
DECISIONS=""
cleanup() {
    if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; fi
    if [ -n "$DECISIONS" ]; then rm -f "$DECISIONS"; fi
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
npm_claude_code "${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}-$CLAUDE_VERSION" "$CLAUDE_VERSION"
echo "claude: $(timeout 30 "$CLAUDE" --version 2>/dev/null || echo unknown)"

HOME_DIR="$WORK/home"
PROJECT="$WORK/project"
mkdir -p "$HOME_DIR" "$PROJECT/.claude"
git init -q "$PROJECT" 2>/dev/null || mkdir -p "$PROJECT/.git"
SETTINGS="$PROJECT/.claude/settings.json"
# $TOOLCAGE_LOG counts only under toolcage's state directory (the suite's own under CTest).
DECISIONS="${TOOLCAGE_STATE_DIR:-$(getent passwd "$(id -u)" | cut -d: -f6)/.local/state/toolcage}/test-logs/$(basename "$WORK").jsonl"

# The entry as `toolcage install claude` writes it, for the Claude Code on PATH.
INSTALLED=$(PATH="$(dirname "$CLAUDE"):/usr/bin:/bin" timeout 60 "$TOOLCAGE_BIN" install claude --settings "$SETTINGS")
echo "$INSTALLED"
grep -q "Claude Code $CLAUDE_VERSION (package.json of .*): a hook that cannot start, hangs past its timeout or crashes blocks the call" <<<"$INSTALLED" \
    || fail "install claude did not report that Claude Code $CLAUDE_VERSION blocks on a failing hook"

# with_hook COMMAND [TIMEOUT] [keep|drop]: the installed settings with the hook's command (and
# timeout) replaced, and its onFailure kept or dropped.
with_hook() {
    node -e '
const fs = require("fs");
const [file, command, timeout, onFailure] = process.argv.slice(1);
const s = JSON.parse(fs.readFileSync(file + ".installed", "utf8"));
const h = s.hooks.PreToolUse[0].hooks[0];
if (h.onFailure !== "block") { console.error("the installed entry has no onFailure: block"); process.exit(1); }
h.command = command;
if (timeout) h.timeout = Number(timeout);
if (onFailure === "drop") delete h.onFailure;
fs.writeFileSync(file, JSON.stringify(s, null, 2));
' "$SETTINGS" "$1" "${2:-}" "${3:-keep}"
}
cp "$SETTINGS" "$SETTINGS.installed"

# run_claude NAME COMMAND [claude options...]: one -p session whose model asks for Bash(COMMAND).
run_claude() {
    local name="$1" command="$2"
    shift 2
    local log="$WORK/$name.requests.jsonl" portfile="$WORK/$name.port"
    MOCK_COMMAND="$command" node "$HERE/mock_anthropic.mjs" "$portfile" "$log" &
    MOCK_PID=$!
    for _ in $(seq 1 100); do [ -s "$portfile" ] && break; sleep 0.1; done
    [ -s "$portfile" ] || fail "the mock API did not start"
    local port rc
    port=$(cat "$portfile")
    set +e
    (cd "$PROJECT" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" TERM=dumb \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY="sk-ant-test-dummy-key" \
        TOOLCAGE_LOG="$DECISIONS" ${TOOLCAGE_STATE_DIR:+"TOOLCAGE_STATE_DIR=$TOOLCAGE_STATE_DIR"} DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 300 "$CLAUDE" -p "Run the command the task needs." --output-format json --max-turns 4 "$@" \
        >"$WORK/$name.out" 2>"$WORK/$name.err")
    rc=$?
    set -e
    kill "$MOCK_PID" 2>/dev/null || true
    wait "$MOCK_PID" 2>/dev/null || true
    MOCK_PID=""
    [ $rc -ne 124 ] || fail "claude -p ($name) timed out; stderr: $(head -c 2000 "$WORK/$name.err")"
    [ -s "$log" ] || fail "Claude Code ($name) never called the mock API: $(head -c 2000 "$WORK/$name.err")"
}


# 1. An approved ask runs caged.
POLICY="$WORK/on-cage-ask.json"
echo '{"name": "on-cage-ask", "extends": "default", "on_cage": "ask"}' >"$POLICY"
with_hook "'$TOOLCAGE_BIN' hook --agent claude --policy '$POLICY'"
cat >"$WORK/mcp.json" <<EOF
{"mcpServers": {"approver": {"command": "node", "args": ["$HERE/approver_mcp.mjs", "$WORK/approver.log"]}}}
EOF
CAGED="python3 -c 'print(open(\"/proc/self/status\").read())' | grep -E '^(Seccomp|NoNewPrivs):'; echo ASK-DONE"
run_claude ask "$CAGED" --mcp-config "$WORK/mcp.json" --permission-prompt-tool mcp__approver__approve
[ -s "$WORK/approver.log" ] || fail "the person (permission-prompt tool) was never asked: $(claude_tool_results "$WORK/ask.requests.jsonl")"
SHOWN=$(node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
console.log(l[0].input.command)' "$WORK/approver.log")
echo "the person was shown: $SHOWN"
case "$SHOWN" in
    "'$TOOLCAGE_BIN' run --policy '$POLICY' "*) ;;
    *) fail "the person was not shown toolcage's cage rewrite: $SHOWN" ;;
esac
RESULT=$(claude_tool_results "$WORK/ask.requests.jsonl")
echo "ask tool result: $RESULT"
grep -q "ASK-DONE" <<<"$RESULT" || fail "the approved command did not run"
grep -Eq 'Seccomp:[[:space:]]+2' <<<"$RESULT" || fail "the approved command ran without the cage's seccomp filter"
grep -Eq 'NoNewPrivs:[[:space:]]+1' <<<"$RESULT" || fail "the approved command ran without no_new_privs"
echo "PASS: an approved ask ran inside the cage"

# 2. A hook that crashes, hangs or exits 1 blocks the call; without onFailure it would not.
printf '#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n' >"$WORK/crash"
printf '#!/bin/sh\nexec sleep 20\n' >"$WORK/hang"
printf '#!/bin/sh\ncat >/dev/null\necho "not an answer" >&2\nexit 1\n' >"$WORK/exit1"
chmod +x "$WORK/crash" "$WORK/hang" "$WORK/exit1"
for bad in crash hang exit1; do
    PROBE="echo RAN-$bad-\$((6*7))"
    with_hook "$WORK/$bad" 3 drop
    run_claude "$bad-without" "$PROBE"
    RESULT=$(claude_tool_results "$WORK/$bad-without.requests.jsonl")
    grep -q "RAN-$bad-42" <<<"$RESULT" \
        || fail "control: without onFailure, Claude Code did not run the call past a $bad hook: $RESULT"
    with_hook "$WORK/$bad" 3 keep
    run_claude "$bad" "$PROBE"
    RESULT=$(claude_tool_results "$WORK/$bad.requests.jsonl")
    echo "$bad hook: $RESULT"
    if grep -q "RAN-$bad-42" <<<"$RESULT"; then fail "the call ran past a $bad hook"; fi
    grep -q 'blocking because onFailure is "block"' <<<"$RESULT" || fail "Claude Code did not say the $bad hook blocked"
    echo "PASS: a $bad hook blocks the call"
done
