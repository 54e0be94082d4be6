#!/usr/bin/env bash
# Whole-process cost of `toolcage check -- ls`, against the cost of starting any process
# (/bin/true) and against a Python start (python3 -c 'import json,sys'), in the same run.
# Goal: within 1.5x /bin/true and at least 15x faster than the Python start.
# usage: bench/check.sh [BUILD_DIR]    (prints a markdown table)
set -euo pipefail
build="${1:-build}"
bin="$(cd "$build" && pwd)/toolcage"
[ -x "$bin" ] || { echo "bench/check.sh: $bin not found; build first (./install.sh)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/check.sh: hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
hyperfine -N --warmup 50 --runs 1000 --export-json "$out" \
    -n true "/bin/true" \
    -n check "$bin check -- ls" \
    -n python "python3 -c 'import json,sys'" >/dev/null
python3 - "$out" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t, c, p = (r[k]["median"] * 1000 for k in ("true", "check", "python"))
print("| command | median ms | ratio |")
print("|---|---|---|")
print(f"| /bin/true | {t:.3f} | 1.00x |")
print(f"| toolcage check -- ls | {c:.3f} | {c/t:.2f}x /bin/true (goal <= 1.5x) |")
print(f"| python3 -c 'import json,sys' | {p:.3f} | {p/c:.1f}x slower than toolcage check (goal >= 15x) |")
PY
