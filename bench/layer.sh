#!/usr/bin/env bash
# The step's layer against the snapshot and restore, in the same run: `toolcage run` of a step
# that changes nothing (`/bin/true`) in a workspace of FILES files (default 20000) under
# cage.layer "auto" and "off", and of a step that writes N new files (the landing's cost against
# the size of the change), each as a ratio layer/snapshot. hyperfine when installed, else a loop.
# Usage: bench/layer.sh [BUILD_DIR]   (default: ./build). Goal: a step that changes nothing costs
# no more with the layer than with the snapshot (ratio <= 1).
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
[[ -x $build/toolcage ]] || { echo "bench/layer.sh: $build/toolcage is not built" >&2; exit 2; }
files=${FILES:-20000}
runs=${RUNS:-20}

work=$(mktemp -d /tmp/toolcage-bench-layer-XXXXXX)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/ws/src"
(cd "$work/ws" && git init -q . && for d in $(seq 1 $((files / 100))); do
   mkdir -p "src/d$d" && for i in $(seq 1 100); do echo "$i" > "src/d$d/f$i.c"; done; done)
for mode in auto off; do
  printf '{"name": "bench-layer-%s", "extends": "default", "cage": {"layer": "%s"}}\n' "$mode" "$mode" \
    > "$work/$mode.json"
done

# Median wall time of `toolcage run` of SCRIPT in ms, RUNS times; PREP runs before each (untimed).
time_step() {
  local policy=$1 script=$2 prep=${3:-true}
  python3 - "$build/toolcage" "$policy" "$work/ws" "$script" "$prep" "$runs" <<'PY'
import statistics, subprocess, sys, time
tc, policy, ws, script, prep, runs = sys.argv[1:7]
times = []
for _ in range(int(runs)):
    subprocess.run(["/bin/sh", "-c", prep], cwd=ws, check=True)
    t = time.perf_counter()
    subprocess.run([tc, "run", "--policy", policy, "--workdir", ws, "--", "/bin/sh", "-c", script],
                   cwd=ws, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - t) * 1e3)
print(f"{statistics.median(times):.2f}")
PY
}

compare() {
  local name=$1 script=$2 prep=${3:-true}
  local layer snap
  layer=$(time_step "$work/auto.json" "$script" "$prep")
  snap=$(time_step "$work/off.json" "$script" "$prep")
  python3 -c "import sys; l, s = float(sys.argv[2]), float(sys.argv[3]); print(f'{sys.argv[1]:<44}layer {l:8.2f} ms  snapshot {s:8.2f} ms  ratio {l/s:5.2f}')" \
    "$name" "$layer" "$snap"
}

echo "workspace: $files files; $runs runs each; median"
compare "a step that changes nothing" "true"
for n in 10 100 1000 5000; do
  compare "a step writing $n new files" "mkdir -p out && i=0; while [ \$i -lt $n ]; do echo \$i > out/f\$i; i=\$((i+1)); done" \
    "rm -rf out"
done
