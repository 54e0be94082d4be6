#!/usr/bin/env bash
# Whole-process cost of `toolcage hook` on a typical Hermes payload (a terminal call in a git
# workspace, caged, logged), against /bin/cat reading the same payload and python3 parsing it
# as JSON, in one hyperfine run; then the ratios and each one's peak RSS (GNU time -v).
# Goals: within 1.5x /bin/cat, at least 15x faster than python3, peak RSS under 8 MB.
# Usage: bench/hook.sh [BUILD_DIR]   (default: build)
set -euo pipefail

BUILD="${1:-build}"
BIN="$(cd "$BUILD" && pwd)/toolcage"
[ -x "$BIN" ] || { echo "no toolcage binary at $BIN; build it first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/toolcage-bench-hook-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws/.git" "$WORK/home/.hermes"
# $TOOLCAGE_LOG counts only under toolcage's state directory (the user database's home).
STATE="$(getent passwd "$(id -u)" | cut -d: -f6)/.local/state/toolcage"
[ -d "$(dirname "$(dirname "$STATE")")" ] || STATE="/tmp/toolcage-state-$(id -u)"
export HOME="$WORK/home" HERMES_HOME="$WORK/home/.hermes" TOOLCAGE_LOG="$STATE/bench-logs/$(basename "$WORK").jsonl"
trap 'rm -rf "$WORK"; rm -f "$TOOLCAGE_LOG"' EXIT
PAYLOAD="$WORK/payload.json"
python3 - "$WORK/ws" > "$PAYLOAD" <<'PY'
import json, sys
ws = sys.argv[1]
print(json.dumps({
    "hook_event_name": "pre_tool_call",
    "tool_name": "terminal",
    "tool_input": {"command": "npm test -- --runInBand 2>&1 | tail -n 50", "workdir": ws,
                   "background": False, "timeout": 180, "pty": False},
    "session_id": "20260101_120000_abcdef",
    "cwd": ws,
    "profile": "default",
    "extra": {"task_id": "default", "tool_call_id": "call_7f3a", "turn_id": "turn_12"},
}))
PY

echo "payload: $(wc -c < "$PAYLOAD") bytes; answer: $("$BIN" hook < "$PAYLOAD" | head -c 200)"
echo

HOOK_CMD="'$BIN' hook < '$PAYLOAD'"
CAT_CMD="/bin/cat < '$PAYLOAD'"
PY_CMD="python3 -c 'import json,sys; json.load(sys.stdin)' < '$PAYLOAD'"
hyperfine --warmup 50 --min-runs 500 --export-json "$WORK/times.json" \
    -n "toolcage hook" "$HOOK_CMD" -n "/bin/cat" "$CAT_CMD" -n "python3 json.load" "$PY_CMD"

python3 - "$WORK/times.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
names = ["toolcage hook", "/bin/cat", "python3 json.load"]
# Medians: on a shared machine the mean follows the neighbours' load more than the program.
med = {n: r[n]["median"] for n in names}
print()
for n in names:
    print(f"{n:18s} median {med[n]*1e3:8.3f} ms   mean {r[n]['mean']*1e3:8.3f} ms   min {r[n]['min']*1e3:8.3f} ms")
print(f"hook / cat        {med['toolcage hook']/med['/bin/cat']:8.2f}x   (goal <= 1.5x)")
print(f"python / hook     {med['python3 json.load']/med['toolcage hook']:8.2f}x   (goal >= 15x)")
PY

# hyperfine subtracts a shell's start-up from each run, which is as noisy as the programs are
# short on a busy machine. So the same three also run interleaved, round after round, straight
# from posix_spawn with the payload as stdin: every round sees the same load, in a new order
# (a fixed seed), so that no command always follows the same one.
python3 - "$BIN" "$PAYLOAD" <<'PY'
import os, random, statistics, sys, time
bin_, payload = sys.argv[1], sys.argv[2]
cmds = {
    "toolcage hook": [bin_, "hook"],
    "/bin/cat": ["/bin/cat"],
    "python3 json.load": ["python3", "-c", "import json,sys; json.load(sys.stdin)"],
}
devnull = os.open(os.devnull, os.O_WRONLY)
times = {k: [] for k in cmds}
rng = random.Random(1)
for rnd in range(330):
    order = list(cmds.items())
    rng.shuffle(order)
    for name, argv in order:
        if name.startswith("python") and rnd % 10:
            continue  # python is slow; every tenth round is plenty
        fd = os.open(payload, os.O_RDONLY)
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)])
        os.waitpid(pid, 0)
        dt = time.perf_counter() - t0
        os.close(fd)
        if rnd >= 30:
            times[name].append(dt)
med = {k: statistics.median(v) for k, v in times.items()}
print()
print("interleaved, spawn to exit:")
for k, v in med.items():
    print(f"{k:18s} median {v*1e3:8.3f} ms   ({len(times[k])} runs)")
print(f"hook / cat        {med['toolcage hook']/med['/bin/cat']:8.2f}x   (goal <= 1.5x)")
print(f"python / hook     {med['python3 json.load']/med['toolcage hook']:8.2f}x   (goal >= 15x)")
PY

echo
rss() { /usr/bin/time -v "$@" < "$PAYLOAD" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
echo "peak RSS (KiB): toolcage hook $(rss "$BIN" hook) (goal < 8192), /bin/cat $(rss /bin/cat)," \
     "python3 $(rss python3 -c 'import json,sys; json.load(sys.stdin)')"
