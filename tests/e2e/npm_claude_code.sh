# npm_claude_code CACHE [VERSION]: Claude Code (VERSION, else npm's latest for this Node.js)
# installed into CACHE once (the path of its `claude` in
# CLAUDE); skips (77) when the registry cannot be reached. `npm install --prefix` takes its global
# configuration from under the prefix, not the system's: the system's npmrc (a company proxy's
# `cafile`, a registry mirror) is named explicitly, and the user's ~/.npmrc is read as npm reads
# it. Its download cache goes with CACHE, not into the user's ~/.npm. Every wait is bounded.
# Sourced by a script that defines fail and skip (exit 77) and a work directory WORK.
npm_claude_code() {
    local cache="$1" package="@anthropic-ai/claude-code${2:+@$2}" global=() rc
    CLAUDE="$cache/node_modules/.bin/claude"
    # What Claude Code keeps of a session (its shell's snapshot, the cwd it tracks, per-project
    # files) goes where CLAUDE_CODE_TMPDIR says, else under the system's temp directory as
    # claude-<uid>: into the work directory, which goes with the test.
    export CLAUDE_CODE_TMPDIR="$WORK/claude-tmp"
    mkdir -p -m 700 "$CLAUDE_CODE_TMPDIR"
    [ -x "$CLAUDE" ] && return 0
    local system_rc
    system_rc=$(timeout 30 npm config get globalconfig 2>/dev/null || true)
    [ -f "$system_rc" ] || system_rc=/etc/npmrc
    [ -f "$system_rc" ] && global=(--globalconfig "$system_rc")
    echo "npm: ${global[*]:-no system npmrc}"
    set +e
    timeout 60 npm "${global[@]}" view "$package" version >/dev/null 2>"$WORK/npm-view.err"
    rc=$?
    set -e
    if [ $rc -ne 0 ]; then
        echo "npm view @anthropic-ai/claude-code: $(tail -c 600 "$WORK/npm-view.err" 2>/dev/null)"
        rm -f "$WORK/npm-view.err"
        [ $rc -eq 124 ] && skip "the npm registry did not answer in 60 s; cannot fetch Claude Code"
        skip "the npm registry is unreachable (npm view failed, exit $rc); cannot fetch Claude Code"
    fi
    rm -f "$WORK/npm-view.err"
    mkdir -p "$cache"
    set +e
    timeout 300 npm install "${global[@]}" --prefix "$cache" --cache "$cache/.npm-cache" --no-audit --no-fund \
        --loglevel=error "$package" >&2
    rc=$?
    set -e
    [ $rc -ne 124 ] || fail "npm install $package did not finish in 300 s"
    [ $rc -eq 0 ] || fail "npm install $package failed (exit $rc; npm ${global[*]:-without a system npmrc})"
    [ -x "$CLAUDE" ] || fail "npm install left no $CLAUDE"
}

# forget_claude_project DIR: what a Claude Code that does not read CLAUDE_CODE_TMPDIR keeps of a
# project under /tmp/claude-<uid> (named after the project's path, each character other than a
# letter, digit or - made a -); the parent goes too when nothing else is in it, and so does the
# directory of its sandbox's sockets.
CLAUDE_TEST_STARTED=$(date +%s)
forget_claude_project() {
    local root="/tmp/claude-$(id -u)"
    # Its sandbox's socket directory (cc-socks for root, cc-socks-<uid> for others), when empty.
    rmdir -- /tmp/cc-socks "/tmp/cc-socks-$(id -u)" 2>/dev/null || true
    [ -n "${1:-}" ] && [ -d "$root" ] || return 0
    rm -rf -- "$root/$(printf '%s' "$1" | sed 's/[^A-Za-z0-9-]/-/g')" 2>/dev/null || true
    # The empty probes of its file watcher that this test's run made (since this file was sourced).
    find "$root" -mindepth 1 -maxdepth 1 -type d -name 'fswatch-probe-*' -newermt "@$CLAUDE_TEST_STARTED" \
        -empty -delete 2>/dev/null || true
    rmdir -- "$root" 2>/dev/null || true
}

# claude_hook_settings FILE TOOLCAGE_BIN [POLICY]: a project's .claude/settings.json with
# `toolcage hook` as its PreToolUse hook, as `toolcage install claude` writes it (the matcher,
# onFailure "block"), with a longer timeout for a loaded machine.
claude_hook_settings() {
    node -e '
const [file, bin, policy] = process.argv.slice(1);
const q = (s) => "\x27" + s.replace(/\x27/g, "\x27\\\x27\x27") + "\x27";
require("fs").writeFileSync(file, JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob",
    hooks: [{ type: "command", command: q(bin) + " hook --agent claude" + (policy ? " --policy " + q(policy) : ""),
              timeout: 30, onFailure: "block" }] }] }
}, null, 2));' "$@"
}

# claude_tool_results LOG: the text of every tool_result Claude Code sent back to the mock of the
# Messages API (tests/hook/mock_anthropic.mjs logs each request body), each once.
claude_tool_results() {
    node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
const seen = new Set();
for (const l of lines) {
  for (const m of JSON.parse(l).body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== "tool_result") continue;
      const t = typeof b.content === "string" ? b.content
              : (b.content ?? []).map((c) => c.text ?? "").join("");
      if (!seen.has(b.tool_use_id + t)) { seen.add(b.tool_use_id + t); console.log(t); }
    }
  }
}' "$1"
}
