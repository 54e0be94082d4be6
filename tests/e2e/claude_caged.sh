#!/usr/bin/env bash
# A real Claude Code (from npm) in -p mode against the loopback mock of the Messages API, with
# `toolcage hook` as its PreToolUse hook: the model asks for a Bash command the hook cages;
# Claude Code runs the rewrite, the command runs inside the cage, and its output reaches the
# model as the tool result (the mock records the next request): NoNewPrivs 1, Seccomp 2, and
# a write to $HOME refused.
# Usage: claude_caged.sh TOOLCAGE_BIN. Exit 77 only when npm is absent or Claude Code cannot
# be fetched because the registry is unreachable (npm_claude_code, lib.sh).
set -euo pipefail
TOOLCAGE="${1:?usage: claude_caged.sh TOOLCAGE_BIN}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
MOCK="$HERE/../hook/mock_anthropic.mjs"
POLICY="$HERE/../../profiles/default.json"
[ -f "$MOCK" ] || fail "no mock of the Messages API at $MOCK"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

make_work claude
# Claude Code, installed once per build tree (TOOLCAGE_NPM_CACHE_DIR), else into the work dir.
CACHE="${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}"
npm_claude_code "$CACHE"
echo "claude: $(timeout 30 "$CLAUDE" --version 2>/dev/null || echo unknown)"

HOME_DIR="$WORK/home"
PROJECT="$WORK/project"
mkdir -p "$HOME_DIR" "$PROJECT/.claude"
git init -q "$PROJECT"
# $TOOLCAGE_LOG counts only under toolcage's state directory (the suite's own under CTest).
DECISIONS="$(toolcage_state_dir)/test-logs/$(basename "$WORK").jsonl"
claude_hook_settings "$PROJECT/.claude/settings.json" "$TOOLCAGE" "$POLICY"

# Code that runs (python3): the hook cages it. Its output is only what the cage shows from inside.
# The home write's target reaches python only at run time (a write to the home the hook can see
# is denied before it runs): there the cage must refuse it.
COMMAND="python3 -c 'print(open(\"/proc/self/status\").read())' | grep -E '^(Seccomp|NoNewPrivs):'; \
python3 -c 'import sys; open(sys.argv[1], \"w\")' \"\$HOME/claude-escape\" 2>/dev/null; echo home-write-exit=\$?; \
echo CAGED-\$((6*7))"

MOCK_COMMAND="$COMMAND" start_node_helper mock "$MOCK"
PORT=$HELPER_PORT
set +e
(cd "$PROJECT" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" TERM=dumb \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY="sk-ant-test-dummy-key" \
    TOOLCAGE_LOG="$DECISIONS" ${TOOLCAGE_STATE_DIR:+"TOOLCAGE_STATE_DIR=$TOOLCAGE_STATE_DIR"} DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    timeout 300 "$CLAUDE" -p "Run the command the task needs." --output-format json --max-turns 4 \
    >"$WORK/claude.out" 2>"$WORK/claude.err")
RC=$?
set -e
echo "claude -p exited $RC"
[ $RC -ne 124 ] || fail "claude -p timed out; stderr: $(head -c 2000 "$WORK/claude.err")"
LOG="$WORK/mock.log"
[ -s "$LOG" ] || fail "Claude Code never called the mock API: $(head -c 2000 "$WORK/claude.err")"

# The tool_result text of every request after the tool call.
RESULT=$(claude_tool_results "$LOG")
echo "--- tool result the model received ---"
echo "$RESULT"
echo "---"
[ -n "$RESULT" ] || fail "the model received no tool result"

VERDICT=$(node -e '
const [file, cmd] = process.argv.slice(1);
const hit = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse)
  .filter((l) => l.agent === "claude" && l.command === cmd).pop();
console.log(hit ? hit.verdict : "none");' "$DECISIONS" "$COMMAND" 2>/dev/null || echo none)
[ "$VERDICT" = cage ] || fail "toolcage logged \"$VERDICT\" for the command, not cage"

grep -q 'CAGED-42' <<<"$RESULT" || fail "the command's output did not reach the model"
grep -Eq 'NoNewPrivs:[[:space:]]+1' <<<"$RESULT" || fail "the tool result does not show NoNewPrivs 1"
grep -Eq 'Seccomp:[[:space:]]+2' <<<"$RESULT" || fail "the tool result does not show a seccomp filter"
grep -q 'home-write-exit=1' <<<"$RESULT" || fail "the write to \$HOME was not refused"
[ ! -e "$HOME_DIR/claude-escape" ] || fail "the caged command wrote $HOME_DIR/claude-escape"
echo "PASS: Claude Code ran the command in the cage and its output reached the model"
