# The real OpenClaw for the end-to-end tests: installed once from npm under a cache of the build
# tree, with the Node.js it needs, and what it leaves in /tmp put away after a run.
# Sourced by a script that defines fail and skip (exit 77) and a work directory WORK.
source "$(dirname "${BASH_SOURCE[0]}")/npm_package.sh"

# npm_openclaw CACHE [RANGE]: OpenClaw (RANGE, else 2026.9.x) installed into CACHE/openclaw once,
# and the Node.js it runs on (24.16 or later; npm ships Node.js as the package node-linux-<arch>,
# installed into CACHE/node-24 when the system's node is older). Sets OPENCLAW (its launcher)
# and OPENCLAW_NODE_DIR (the directory of that node, to put first on PATH). Node's compile
# cache, which would go to /tmp/node-compile-cache, goes to CACHE/node-compile-cache; the
# install scripts' temporary files to WORK/tmp.
npm_openclaw() {
    local cache="$1" range="${2:-~2026.9.0}" arch
    if node -e 'const [a, b] = process.versions.node.split(".").map(Number);
                process.exit((a === 24 && b >= 16) || (a === 26 && b >= 1) || a > 26 ? 0 : 1)' 2>/dev/null; then
        OPENCLAW_NODE_DIR=$(dirname "$(command -v node)")
    else
        case $(uname -m) in
            x86_64) arch=x64 ;;
            aarch64) arch=arm64 ;;
            *) skip "npm ships no Node.js package for $(uname -m); OpenClaw needs Node.js 24.16 or later" ;;
        esac
        npm_package "$cache/node-24" "node-linux-$arch@^24.16.0" "node_modules/node-linux-$arch/bin/node"
        OPENCLAW_NODE_DIR="$cache/node-24/node_modules/node-linux-$arch/bin"
    fi
    mkdir -p "$WORK/tmp"
    # Its preinstall script checks the node first on PATH.
    PATH="$OPENCLAW_NODE_DIR:$PATH" NODE_COMPILE_CACHE="$cache/node-compile-cache" TMPDIR="$WORK/tmp" \
        npm_package "$cache/openclaw" "openclaw@$range" node_modules/.bin/openclaw
    OPENCLAW="$cache/openclaw/node_modules/.bin/openclaw"
    OPENCLAW_COMPILE_CACHE="$cache/node-compile-cache"
}

# OpenClaw writes under /tmp whatever TMPDIR says: its temporary root /tmp/openclaw (when that
# is the user's; else a directory under TMPDIR) and the lock files of its state database in
# /tmp/openclaw-state-locks-<uid>, named after the database's path (so this run's are its own).
# openclaw_temp_mark records what is there before a run; forget_openclaw_run removes what the
# run added, and each directory when the run made it and left it empty.
OPENCLAW_TEMP_DIRS=()
openclaw_temp_mark() {
    local d
    OPENCLAW_TEMP_DIRS=(/tmp/openclaw "/tmp/openclaw-state-locks-$(id -u)")
    mkdir -p "$WORK/openclaw-temp"
    for d in "${OPENCLAW_TEMP_DIRS[@]}"; do
        if [ -d "$d" ]; then
            find "$d" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | LC_ALL=C sort \
                >"$WORK/openclaw-temp/$(basename "$d").before"
        fi
    done
}
forget_openclaw_run() {
    local d before name
    for d in "${OPENCLAW_TEMP_DIRS[@]}"; do
        [ -d "$d" ] || continue
        before="$WORK/openclaw-temp/$(basename "$d").before"
        while IFS= read -r name; do
            if [ ! -f "$before" ] || ! grep -Fxq -- "$name" "$before"; then rm -rf -- "${d:?}/$name"; fi
        done < <(find "$d" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null)
        [ -f "$before" ] || rmdir -- "$d" 2>/dev/null || true
    done
}

# openclaw_tool_results LOG: the content of every tool result OpenClaw sent back to the mock of
# the chat completions API (tests/hook/mock_openai.mjs logs each request body), each once, with
# the name of the call it answers: "<tool>: <text>".
openclaw_tool_results() {
    node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
const seen = new Set();
for (const l of lines) {
  const names = {};
  for (const m of JSON.parse(l).body.messages ?? []) {
    for (const c of m.tool_calls ?? []) names[c.id] = c.function?.name;
    if (m.role !== "tool") continue;
    const t = typeof m.content === "string" ? m.content
            : (m.content ?? []).map((c) => c.text ?? "").join("");
    const key = m.tool_call_id + t;
    if (!seen.has(key)) { seen.add(key); console.log((names[m.tool_call_id] ?? "?") + ": " + t); }
  }
}' "$1"
}
