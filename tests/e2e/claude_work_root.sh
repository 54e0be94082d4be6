#!/usr/bin/env bash
# A worker's day in a work root under the forge policy, with a real Claude Code (from npm) in -p mode, no person to ask
# (no permission prompt tool) and `toolcage hook` as its PreToolUse hook. The home looks like a
# user's: a git identity with a token in url.insteadOf, an npm token, an ssh key. Claude Code
# starts in ~/work, a work root of the policy; the scripted model then
#   1. clones a repository there: it runs in the cage with the new directory as its only
#      writable place (workspace.new-project);
#   2. runs the project's tests: caged (NoNewPrivs, seccomp), the project writable, the home's
#      secrets hidden and the home closed;
#   2b. installs (npm) and commits (git), caged, without the token in the user's git configuration;
#   3. lists the home: allowed, in the read-only cage, without a question;
#   4. writes in ~/notes, a directory of the home outside any project and root: asked, and with
#      nobody to answer Claude Code refuses it; nothing is written;
#   5. writes in the home itself: refused outright; nothing is written.
# Every check is on the filesystem, the decision log and what the model received.
# Usage: claude_work_root.sh TOOLCAGE_BIN. Exit 77 only when npm is absent or Claude Code cannot
# be fetched because the registry is unreachable (npm_claude_code, lib.sh).
set -euo pipefail
TOOLCAGE="${1:?usage: claude_work_root.sh TOOLCAGE_BIN}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/worker_day.sh"
MOCK="$HERE/../hook/mock_anthropic.mjs"
[ -f "$MOCK" ] || fail "no mock of the Messages API at $MOCK"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"
command -v make >/dev/null 2>&1 || skip "make is not installed"

make_work claude-root
CACHE="${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}"
npm_claude_code "$CACHE"
echo "claude: $(timeout 30 "$CLAUDE" --version 2>/dev/null || echo unknown)"

HOME_DIR="$WORK/home"
ROOT="$HOME_DIR/work"
PROJECT="$ROOT"  # what Claude Code calls its project: where it starts (forget_claude_project)
mkdir -p "$ROOT/.claude"
worker_home "$HOME_DIR"
stranger_repo

POLICY="$WORK/worker.json"
worker_policy "$POLICY" "$ROOT" "$BARE"
"$TOOLCAGE" policy validate "$POLICY" >/dev/null || fail "the worker policy does not validate"

DECISIONS="$(toolcage_state_dir)/test-logs/$(basename "$WORK").jsonl"
claude_hook_settings "$ROOT/.claude/settings.json" "$TOOLCAGE" "$POLICY"

CLONE="git clone file://$BARE proj"
INSTALL="cd $ROOT/proj && npm install --no-audit --no-fund && echo INSTALLED"
TESTS="cd $ROOT/proj && make test"
COMMIT="cd $ROOT/proj && git add -A && git -c user.name='Day Worker' -c user.email=worker@example.com commit -q -m 'tests pass' && git log -1 --format='COMMITTED by %an' && git config --list --show-origin | grep -c ghp_ || true"
LIST="cd $HOME_DIR && ls"
NOTE="cd $HOME_DIR/notes && sh ./remember.sh && echo NOTE-WRITTEN"
HOMEWRITE="cd $HOME_DIR && echo planted > planted.txt && echo HOME-WRITTEN"
COMMANDS=$(node -e 'console.log(JSON.stringify(process.argv.slice(1)))' \
    "$CLONE" "$INSTALL" "$TESTS" "$COMMIT" "$LIST" "$NOTE" "$HOMEWRITE")

MOCK_COMMANDS="$COMMANDS" start_node_helper mock "$MOCK"
PORT=$HELPER_PORT
set +e
(cd "$ROOT" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" TERM=dumb \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY="sk-ant-test-dummy-key" \
    TOOLCAGE_LOG="$DECISIONS" ${TOOLCAGE_STATE_DIR:+"TOOLCAGE_STATE_DIR=$TOOLCAGE_STATE_DIR"} \
    DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    timeout 400 "$CLAUDE" -p "Clone the repository and run its tests." --output-format json --max-turns 12 \
    >"$WORK/claude.out" 2>"$WORK/claude.err")
RC=$?
set -e
echo "claude -p exited $RC"
[ $RC -ne 124 ] || fail "claude -p timed out; stderr: $(head -c 2000 "$WORK/claude.err")"
[ -s "$WORK/mock.log" ] || fail "Claude Code never called the mock API: $(head -c 2000 "$WORK/claude.err")"

RESULT=$(claude_tool_results "$WORK/mock.log")
echo "--- tool results the model received ---"
echo "$RESULT"
echo "---"

# verdict COMMAND: what toolcage logged for it (the last such line), "verdict rule". Claude Code
# drops a leading `cd DIR &&` when its shell is in DIR already: the rest is the same call.
verdict() {
    node -e '
const [file, cmd] = process.argv.slice(1);
const hit = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse)
  .filter((l) => l.agent === "claude" &&
    (l.command === cmd || (cmd.startsWith("cd ") && cmd.endsWith(" && " + l.command)))).pop();
console.log(hit ? hit.verdict + " " + hit.rule : "none");' "$DECISIONS" "$1" 2>/dev/null || echo none
}

# 1. The clone: caged into its new directory.
V=$(verdict "$CLONE")
[ "$V" = "cage workspace.new-project" ] || fail "the clone was logged as \"$V\", not cage workspace.new-project"
[ -f "$ROOT/proj/Makefile" ] || fail "the clone did not land in $ROOT/proj"
[ "$(ls -A "$ROOT" | sort | tr '\n' ' ')" = ".claude proj " ] || fail "the clone wrote beside its directory: $(ls -A "$ROOT")"

# 2. The tests: caged, the project written, secrets hidden, the home closed.
V=$(verdict "$TESTS")
[ "${V%% *}" = cage ] || fail "the tests were logged as \"$V\", not caged"
grep -q TESTS-PASSED <<<"$RESULT" || fail "the tests' output did not reach the model"
grep -Eq 'NoNewPrivs:[[:space:]]+1' <<<"$RESULT" || fail "the tests did not run with NoNewPrivs"
grep -Eq 'Seccomp:[[:space:]]+2' <<<"$RESULT" || fail "the tests did not run under seccomp"
grep -q project-write=ok <<<"$RESULT" || fail "the tests could not write their project"
[ "$(cat "$ROOT/proj/test-output.txt")" = built ] || fail "the tests' output file is not in the project"
grep -q npmrc=hidden <<<"$RESULT" || fail "the tests read ~/.npmrc"
grep -q sshkey=hidden <<<"$RESULT" || fail "the tests read the ssh key"
grep -q home-write=refused <<<"$RESULT" || fail "the tests wrote the home"
[ ! -e "$HOME_DIR/planted-by-tests" ] || fail "the tests planted a file in the home"

# The install and the commit: caged, in the project, and without the token the user's git
# configuration holds. (The cage's git reads the user database's home, not this test's $HOME:
# the identity is given on the command line, as a worker without one of its own does.)
V=$(verdict "$INSTALL")
[ "${V%% *}" = cage ] || fail "npm install was logged as \"$V\", not caged"
grep -q INSTALLED <<<"$RESULT" || fail "npm install did not finish in the cage"
[ -f "$ROOT/proj/package-lock.json" ] || fail "npm install wrote no package-lock.json in the project"
V=$(verdict "$COMMIT")
[ "${V%% *}" = cage ] || fail "the commit was logged as \"$V\", not caged"
grep -q "COMMITTED by Day Worker" <<<"$RESULT" || fail "the commit did not carry the identity it was given"
[ "$(git -C "$ROOT/proj" log -1 --format=%s)" = "tests pass" ] || fail "the commit is not in the project"
grep -q ghp_SECRETTOKEN <<<"$RESULT" && fail "the token in the user's git configuration reached the step"

# 3. Listing the home: allowed, read-only, no question.
V=$(verdict "$LIST")
[ "${V%% *}" = allow ] || fail "ls in the home was logged as \"$V\", not allow"
grep -q 'notes' <<<"$RESULT" || fail "ls in the home did not reach the model"

# 4. A write in ~/notes: asked (the question names the directory); nobody answers; not written.
V=$(verdict "$NOTE")
[ "$V" = "ask hook.no-workspace" ] || fail "the write in ~/notes was logged as \"$V\", not ask hook.no-workspace"
[ ! -e "$HOME_DIR/notes/note.txt" ] || fail "the write in ~/notes ran without an approval"
grep -q NOTE-WRITTEN <<<"$RESULT" && fail "the write in ~/notes reached the model as done"

# 5. A write in the home itself: refused outright; not written.
V=$(verdict "$HOMEWRITE")
[ "${V%% *}" = deny ] || fail "the write in the home was logged as \"$V\", not deny"
[ ! -e "$HOME_DIR/planted.txt" ] || fail "the write in the home ran"
grep -q HOME-WRITTEN <<<"$RESULT" && fail "the write in the home reached the model as done"

# The user's files are as they were.
grep -q ghp_SECRETTOKEN0123456789 "$HOME_DIR/.gitconfig" || fail "~/.gitconfig changed"
echo "ok: a worker in a work root cloned and tested caged; ls in the home ran read-only; writes outside projects were not run"
