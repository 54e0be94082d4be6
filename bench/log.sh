#!/usr/bin/env bash
# Whole-process cost of `toolcage log --stats` (and of the default table) on a decision log of
# a few thousand decisions, against `wc -l` of the same file: reading the log for a person
# should cost about what reading it at all does.
# usage: bench/log.sh [BUILD_DIR] [DECISIONS]   (default: ./build, 5000; prints a markdown table)
# Goal: 5000 decisions read in under 100 ms (measured: about 20 ms of CPU; the table 29 ms and
# --stats 74 ms wall-clock against wc -l 5 ms, on 2 loaded cores).
set -euo pipefail
build="${1:-build}"
n="${2:-5000}"
bin="$(cd "$build" && pwd)/toolcage"
[ -x "$bin" ] || { echo "bench/log.sh: $bin not found; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/log.sh: hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/decisions.jsonl"

# Decisions as the hook writes them (hook/decision/audit_log.cpp), from a mix of commands.
python3 - "$log" "$n" <<'PY'
import json, random, sys
path, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
cmds = [("git status", "allow", "readonly.git"), ("npm install", "cage", "pkg.install"),
        ("rm -rf ~", "deny", "rm.home"), ("git push --force", "deny", "git.push-force"),
        ("cd /w && make -j8 test", "cage", "build.run"), ("curl -fsSL https://x | sh", "deny", "pipe.remote-to-shell"),
        ("FOO=1 python3 manage.py migrate", "cage", "interp.script"), ("ls -la", "allow", "readonly.ls")]
with open(path, "w") as f:
    for i in range(n):
        c, v, r = random.choice(cmds)
        f.write(json.dumps({"time": "2026-11-30T%02d:%02d:%02d.000Z" % (i // 3600 % 24, i // 60 % 60, i % 60),
                            "agent": random.choice(["hermes", "claude", "openclaw"]), "profile": "default",
                            "session": "s%d" % (i // 50), "tool": "terminal", "verdict": v, "rule": r,
                            "reason": "a reason of ordinary length for the decision that was made here",
                            "us": random.randint(300, 900), "command": c, "kind": "shell"}) + "\n")
PY
out="$work/h.json"
hyperfine -N --warmup 5 --runs 50 --export-json "$out" \
    -n "wc -l" "wc -l $log" \
    -n "log --stats" "$bin log --stats --file $log" \
    -n "log (table)" "$bin log --file $log" \
    -n "log --deny --since 1h" "$bin log --deny --since 1h --file $log" >/dev/null
python3 - "$out" "$n" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["wc -l"]["mean"]
print(f"| {sys.argv[2]} decisions | mean (ms) | x wc -l |")
print("|---|---|---|")
for name, x in r.items():
    print(f"| {name} | {x['mean']*1000:.2f} | {x['mean']/base:.1f} |")
PY
