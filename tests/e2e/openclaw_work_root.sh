#!/usr/bin/env bash
# A worker's day in a work root with the real OpenClaw (from npm): one `openclaw agent --local`
# turn, no person to approve anything, against a loopback mock of the chat completions API
# that calls one tool at a time. toolcage's plugin is wired in by `toolcage install openclaw`
# under a policy that extends forge with ~/work as its work root; OpenClaw's workspace (where
# exec runs) is ~/work. The home looks like a user's (worker_day.sh). The model then
#   1. clones a repository in ~/work: caged, with the new directory as its only writable place
#      (workspace.new-project);
#   2. runs the project's tests (exec's workdir the project): caged (NoNewPrivs, seccomp), the
#      project writable, the home's secrets hidden and the home closed;
#   3. lists the home: allowed, in the read-only cage, without a question;
#   4. runs a script in ~/notes, a directory of the home outside any project and root: asked,
#      and with nobody to approve, OpenClaw blocks it; nothing is written;
#   5. writes in the home itself with exec, and 6. with OpenClaw's write tool: refused (or
#      asked and blocked); nothing is written;
#   7. reads the ssh key with OpenClaw's read tool: refused.
# Every check is on the filesystem, the decision log and what the model received.
# Usage: openclaw_work_root.sh TOOLCAGE_BIN. Exit 77 only when npm is absent or OpenClaw (or the
# Node.js it needs) cannot be fetched because the registry is unreachable (npm_openclaw.sh).
set -euo pipefail
TOOLCAGE="${1:?usage: openclaw_work_root.sh TOOLCAGE_BIN}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/worker_day.sh"
source "$HERE/npm_openclaw.sh"
MOCK="$HERE/../hook/mock_openai.mjs"
PLUGIN="$HERE/../../plugins/openclaw"
[ -f "$MOCK" ] || fail "no mock of the chat completions API at $MOCK"
[ -f "$PLUGIN/openclaw.plugin.json" ] || fail "no OpenClaw plugin at $PLUGIN"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"
command -v make >/dev/null 2>&1 || skip "make is not installed"

make_work openclaw-root
CACHE="${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}"
npm_openclaw "$CACHE"
echo "openclaw: $(PATH="$OPENCLAW_NODE_DIR:$PATH" NODE_COMPILE_CACHE="$OPENCLAW_COMPILE_CACHE" \
    timeout 60 "$OPENCLAW" --version 2>/dev/null || echo unknown), node $("$OPENCLAW_NODE_DIR/node" --version)"

# toolcage's state: the suite's own under CTest; run alone, one of this test's own, so that the
# policy it installs and its decision log stay out of the user's.
if [ -z "${TOOLCAGE_STATE_DIR:-}" ]; then
    (umask 077 && mkdir -p "$WORK/state" && : >"$WORK/state/.toolcage-test-state")
    export TOOLCAGE_STATE_DIR="$WORK/state"
fi

HOME_DIR="$WORK/home"
ROOT="$HOME_DIR/work"
mkdir -p "$ROOT"
worker_home "$HOME_DIR"
stranger_repo

# The policy, installed where toolcage finds a user's policies (the plugin names a policy).
NAME="openclaw-root-$(basename "$WORK" | sed 's/.*-//')"
POLICY="$TOOLCAGE_STATE_DIR/profiles/$NAME.json"
mkdir -p "$(dirname "$POLICY")"
REMOVE_ON_EXIT+=("$POLICY")
worker_policy "$POLICY" "$ROOT" "$BARE"
"$TOOLCAGE" policy validate "$NAME" >/dev/null || fail "the worker policy does not validate"
DECISIONS="$TOOLCAGE_STATE_DIR/test-logs/$(basename "$WORK").jsonl"

# The script: one tool call per model request, the next after each result.
CLONE="git clone file://$BARE proj"
TESTS="make test"
LIST="ls"
NOTE="sh ./remember.sh && echo NOTE-WRITTEN"
HOMEWRITE="echo planted > planted.txt && echo HOME-WRITTEN"
CALLS=$(node -e '
const [root, home, clone, tests, list, note, homewrite] = process.argv.slice(1);
console.log(JSON.stringify([
  { name: "exec", arguments: { command: clone } },
  { name: "exec", arguments: { command: tests, workdir: root + "/proj" } },
  { name: "exec", arguments: { command: list, workdir: home } },
  { name: "exec", arguments: { command: note, workdir: home + "/notes" } },
  { name: "exec", arguments: { command: homewrite, workdir: home } },
  { name: "write", arguments: { path: home + "/planted-by-write.txt", content: "planted\n" } },
  { name: "read", arguments: { path: home + "/.ssh/id_ed25519" } },
]));' "$ROOT" "$HOME_DIR" "$CLONE" "$TESTS" "$LIST" "$NOTE" "$HOMEWRITE")
MOCK_CALLS="$CALLS" start_node_helper mock "$MOCK"
PORT=$HELPER_PORT

# OpenClaw's configuration in the scratch home: the mock as its only model provider, ~/work as
# the workspace, where exec runs (skipBootstrap: no persona files and no `git init` there, so
# that ~/work holds only what the steps made; a root stays a root either way), its log in the
# work directory. Then toolcage's plugin, as a user installs it.
mkdir -p "$HOME_DIR/.openclaw"
node -e '
const [file, port, root, log] = process.argv.slice(1);
require("fs").writeFileSync(file, JSON.stringify({
  models: { mode: "replace", providers: { mock: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "mock-key",
    api: "openai-completions", models: [{ id: "mock-model", name: "Mock", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }] } } },
  agents: { defaults: { workspace: root, skipBootstrap: true, model: { primary: "mock/mock-model" } } },
  logging: { file: log },
}, null, 2));' "$HOME_DIR/.openclaw/openclaw.json" "$PORT" "$ROOT" "$WORK/openclaw.log"
(cd "$WORK" && HOME="$HOME_DIR" "$TOOLCAGE" install openclaw --plugin-dir "$PLUGIN" --policy "$NAME" \
    >"$WORK/install.out" 2>&1) || fail "toolcage install openclaw failed: $(cat "$WORK/install.out")"

openclaw_temp_mark
set +e
(cd "$ROOT" && env -i PATH="$OPENCLAW_NODE_DIR:/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" TERM=dumb \
    TMPDIR="$WORK/tmp" NODE_COMPILE_CACHE="$OPENCLAW_COMPILE_CACHE" \
    TOOLCAGE_LOG="$DECISIONS" TOOLCAGE_STATE_DIR="$TOOLCAGE_STATE_DIR" \
    timeout -k 30 450 "$OPENCLAW" agent --local --agent main --json --timeout 400 \
    --message "Clone the repository and run its tests." >"$WORK/openclaw.out" 2>"$WORK/openclaw.err")
RC=$?
set -e
echo "openclaw agent --local exited $RC"
[ $RC -ne 124 ] && [ $RC -ne 137 ] || fail "openclaw agent timed out; stderr: $(tail -c 2000 "$WORK/openclaw.err")"
[ -s "$WORK/mock.log" ] || fail "OpenClaw never called the mock API: $(tail -c 2000 "$WORK/openclaw.err")"

RESULT=$(openclaw_tool_results "$WORK/mock.log")
echo "--- tool results the model received ---"
echo "$RESULT"
echo "---"
[ $RC -eq 0 ] || fail "openclaw agent exited $RC: $(tail -c 2000 "$WORK/openclaw.err")"

# verdict COMMAND|PATH: what toolcage logged for OpenClaw's call (the last such line), "verdict rule".
verdict() {
    node -e '
const [file, what] = process.argv.slice(1);
const hit = require("fs").readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse)
  .filter((l) => l.agent === "openclaw" && (l.command === what || (l.paths ?? []).includes(what))).pop();
console.log(hit ? hit.verdict + " " + hit.rule : "none");' "$DECISIONS" "$1" 2>/dev/null || echo none
}

# OpenClaw's exec gives its commands a socket for stdin; the steps' bash must not take that for
# sshd and read start-up files (toolcage's cage refuses ~/.bashrc, and would say so each time).
grep -q 'bashrc' <<<"$RESULT" && fail "a step's bash read its start-up files (see the tool results above)"

# 1. The clone: caged into its new directory.
V=$(verdict "$CLONE")
[ "$V" = "cage workspace.new-project" ] || fail "the clone was logged as \"$V\", not cage workspace.new-project"
[ -f "$ROOT/proj/Makefile" ] || fail "the clone did not land in $ROOT/proj"
[ "$(ls -A "$ROOT" | tr '\n' ' ')" = "proj " ] || fail "the clone wrote beside its directory: $(ls -A "$ROOT")"

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

# 3. Listing the home: allowed, read-only, no question.
V=$(verdict "$LIST")
[ "${V%% *}" = allow ] || fail "ls in the home was logged as \"$V\", not allow"
grep -q 'notes' <<<"$RESULT" || fail "ls in the home did not reach the model"

# 4. A script in ~/notes: asked; nobody approves; not run.
V=$(verdict "$NOTE")
[ "$V" = "ask hook.no-workspace" ] || fail "the write in ~/notes was logged as \"$V\", not ask hook.no-workspace"
[ ! -e "$HOME_DIR/notes/note.txt" ] || fail "the write in ~/notes ran without an approval"
grep -q NOTE-WRITTEN <<<"$RESULT" && fail "the write in ~/notes reached the model as done"

# 5. A write in the home itself with exec: refused outright; not written.
V=$(verdict "$HOMEWRITE")
[ "${V%% *}" = deny ] || fail "the write in the home was logged as \"$V\", not deny"
[ ! -e "$HOME_DIR/planted.txt" ] || fail "the write in the home ran"
grep -q HOME-WRITTEN <<<"$RESULT" && fail "the write in the home reached the model as done"

# 6. The same with OpenClaw's write tool: not allowed, not written.
V=$(verdict "$HOME_DIR/planted-by-write.txt")
case ${V%% *} in deny | ask) ;; *) fail "the write tool's call in the home was logged as \"$V\", not deny or ask" ;; esac
[ ! -e "$HOME_DIR/planted-by-write.txt" ] || fail "the write tool wrote the home"

# 7. OpenClaw's read tool on the ssh key: refused; the key does not reach the model.
V=$(verdict "$HOME_DIR/.ssh/id_ed25519")
[ "$V" = "deny secret.read" ] || fail "the read tool's call on the ssh key was logged as \"$V\", not deny secret.read"
grep -q 'PRIVATE KEY' <<<"$RESULT" && fail "the ssh key reached the model"

# The user's files are as they were.
grep -q ghp_SECRETTOKEN0123456789 "$HOME_DIR/.gitconfig" || fail "~/.gitconfig changed"
echo "ok: OpenClaw in a work root cloned and tested caged; ls in the home ran read-only; writes outside projects were not run"
