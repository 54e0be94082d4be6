#!/usr/bin/env bash
# Writes tools/startup.order: the functions `toolcage` runs on its start-up paths (the hook for
# each agent, check, a caged and a read-only step), in the order they first run, for the
# linker to lay out side by side. Why: a page fault costs far more than the code it maps (on a
# virtual machine, 10 us each), and the code an agent's tool call runs, scattered over the
# binary's 6 MB, faults in most of it; laid out together it faults in a few dozen pages.
# The list is only a layout hint: a stale one costs speed, never behaviour; lld ignores names
# that are gone. Rerun it when the start-up paths change much, and compare with bench/journal.sh.
# Needs valgrind (callgrind counts every function run, not samples).
# Usage: bench/startup_order.sh [BUILD_DIR]   (default: build)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
bin=$build/toolcage
[[ -x $bin ]] || { echo "startup_order.sh: no toolcage binary at $bin; build it first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "startup_order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }

work=$(mktemp -d /tmp/toolcage-order-XXXXXX)
trap '[[ -n ${KEEP_WORK:-} ]] || rm -rf "$work"' EXIT
ws=$work/ws
mkdir -p "$ws/.git" "$work/out"

python3 - "$work" "$ws" <<'PY'
import json, os, sys
work, ws = sys.argv[1], sys.argv[2]
def hermes(tool, inp):
    return {"hook_event_name": "pre_tool_call", "tool_name": tool, "tool_input": inp,
            "session_id": "20260101_120000_abcdef", "cwd": ws, "profile": "default"}
def claude(tool, inp):
    return {"session_id": "0b7e2c1a", "cwd": ws, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": inp, "tool_use_id": "toolu_01"}
payloads = {
    "hermes-cage": hermes("terminal", {"command": "npm test 2>&1 | tail -n 50", "workdir": ws}),
    "hermes-allow": hermes("terminal", {"command": "git status && ls -la src", "workdir": ws}),
    "hermes-read": hermes("read_file", {"path": os.path.join(ws, "README.md")}),
    "hermes-write": hermes("write_file", {"path": os.path.join(ws, "a.txt"), "content": "x"}),
    "hermes-deny": hermes("terminal", {"command": "rm -rf ~", "workdir": ws}),
    "claude-cage": claude("Bash", {"command": "make test", "description": "Run"}),
    "claude-edit": claude("Edit", {"file_path": os.path.join(ws, "a.txt"), "old_string": "a", "new_string": "b"}),
    "openclaw-cage": {"toolName": "exec", "params": {"command": "pip install -r requirements.txt"},
                      "agentId": "main", "sessionId": "s1", "workspaceDir": ws},
}
for name, p in payloads.items():
    with open(os.path.join(work, name + ".json"), "w") as f:
        json.dump(p, f)
PY

# Each start-up path once under callgrind; forks are followed (%p names each process's file).
profile() {  # profile NAME STDIN ARGS...
    local name=$1 input=$2; shift 2
    (cd "$ws" && valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/out/$name.%p" \
        "$bin" "$@" <"$input" >/dev/null 2>"$work/out/$name.log") || true
}
for p in "$work"/*.json; do
    name=$(basename "$p" .json)
    profile "$name" "$p" hook --agent "${name%%-*}"
done
profile check /dev/null check -- npm test
profile run /dev/null run --workspace "$ws" -- /bin/true
profile readonly /dev/null run --read-only --workspace "$ws" -- /bin/true

# Every function named in any profile, in first-seen order, once. The hermes terminal call
# comes first: it is the call an agent makes most. glibc picks its string functions by CPU
# (memmove, strlen... in sse2, avx2, evex variants) and valgrind's CPU is not the user's: each
# such function run is listed in all its variants, after the rest.
out=$here/tools/startup.order
python3 - "$work/out" "$bin" "$out.tmp" <<'PY'
import os, re, subprocess, sys
outdir, binary, dest = sys.argv[1:4]
files = sorted(os.listdir(outdir), key=lambda f: (not f.startswith("hermes-cage"), f))
names = []
for f in files:
    if f.endswith(".log"):
        continue
    with open(os.path.join(outdir, f), errors="replace") as fh:
        for line in fh:
            m = re.match(r"c?fn=\(\d+\) (.+?)(?:'\d+)?$", line)  # 'N: callgrind's recursion depth
            if m and not m.group(1).startswith("0x"):
                names.append(m.group(1))
symbols = [l.split()[-1] for l in subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                                                 text=True, check=True).stdout.splitlines()]
variant = re.compile(r"^(__[a-z0-9]+_)(sse2|sse4_[12]|ssse3|avx2|avx|evex|avx512)")
seen, order, variants = set(), [], []
def add(n, to):
    if n not in seen:
        seen.add(n)
        to.append(n)
for n in names:
    add(n, order)
for n in names:
    m = variant.match(n)
    if m:
        for s in symbols:
            if s.startswith(m.group(1)) and variant.match(s):
                add(s, variants)
order += variants  # after the rest: only one of each runs on a given CPU
with open(dest, "w") as fh:
    fh.write("\n".join(order) + "\n")
PY
mv "$out.tmp" "$out"
echo "startup_order.sh: $(wc -l <"$out") functions in $out"
