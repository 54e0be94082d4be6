# npm_claude_code CACHE [VERSION]: Claude Code (VERSION, else npm's latest for this Node.js)
# installed into CACHE once (npm_package); the path of its `claude` in CLAUDE. Skips (77) when
# the registry cannot be reached.
source "$(dirname "${BASH_SOURCE[0]}")/npm_package.sh"
npm_claude_code() {
    CLAUDE="$1/node_modules/.bin/claude"
    # What Claude Code keeps of a session (its shell's snapshot, the cwd it tracks, per-project
    # files) goes where CLAUDE_CODE_TMPDIR says, else under the system's temp directory as
    # claude-<uid>: into the work directory, which goes with the test.
    export CLAUDE_CODE_TMPDIR="$WORK/claude-tmp"
    mkdir -p -m 700 "$CLAUDE_CODE_TMPDIR"
    npm_package "$1" "@anthropic-ai/claude-code${2:+@$2}" node_modules/.bin/claude
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
    # The probes of its file watcher that this test's run made (since this file was sourced):
    # empty, or holding only their probe file when a Claude Code was stopped before it took it.
    local probe
    while IFS= read -r probe; do
        if [ -z "$(ls -A -- "$probe" | grep -vx probe)" ]; then rm -rf -- "$probe"; fi
    done < <(find "$root" -mindepth 1 -maxdepth 1 -type d -name 'fswatch-probe-*' \
        -newermt "@$CLAUDE_TEST_STARTED" 2>/dev/null)
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
