#!/usr/bin/env bash
# The cost of workspace integrity: the after-step check alone (bench_integrity: snapshot +
# compare of the protected paths in a repository made by git init, with 200 files), and
# `toolcage run -- /bin/true` in that repository against the same in a directory with no
# protected path at all (hyperfine), so the check's share of a whole step shows.
# Usage: bench/integrity.sh [BUILD_DIR]   (default: ./build). Goal: snapshot + compare < 5 ms.
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
[[ -x $build/bench/cage/bench_integrity ]] || {
  echo "bench/integrity.sh: $build/bench/cage/bench_integrity is not built (ninja bench_integrity)" >&2
  exit 2
}
"$build/bench/cage/bench_integrity" --benchmark_min_time=0.2

command -v hyperfine >/dev/null || { echo "note: hyperfine is not installed; whole-process timing skipped"; exit 0; }
[[ -x $build/toolcage ]] || { echo "note: $build/toolcage not built; whole-process timing skipped"; exit 0; }

work=$(mktemp -d /tmp/toolcage-bench-integrity-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo" "$work/plain"
(cd "$work/repo" && git init -q . && mkdir -p .vscode src && echo '{}' > .vscode/settings.json &&
  for i in $(seq 1 200); do echo "$i" > "src/f$i.c"; done &&
  git add -A && git -c user.name=b -c user.email=b@example.org commit -q -m b)

hyperfine -N --warmup 20 --runs "${RUNS:-200}" --export-json "$work/result.json" \
  -n "run in a repository" "$build/toolcage run --workdir $work/repo -- /bin/true" \
  -n "run in an empty directory" "$build/toolcage run --workdir $work/plain -- /bin/true" >/dev/null

python3 - "$work/result.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
a, b = r["run in a repository"], r["run in an empty directory"]
for n, x in r.items():
    print(f"{n:<28}{x['median']*1e3:>8.2f} ms median")
print(f"the protected paths of a repository add {(a['median']-b['median'])*1e3:+.2f} ms to a caged step")
PY
