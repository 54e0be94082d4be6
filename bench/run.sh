#!/usr/bin/env bash
# Runs every benchmark against a Release build and prints one markdown report, each figure a
# ratio against a peer measured in the same run. README's performance section is this output.
# usage: bench/run.sh [BUILD_DIR]   (default: build, as ./install.sh leaves it)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
status=0
section() {
    local title="$1"; shift
    echo
    echo "### $title"
    echo
    "$@" || { echo "(failed: $*)"; status=1; }
}
echo "## Benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, kernel $(uname -r))"
section "Classifier throughput (Google Benchmark, one core)" \
    "$build/bench/classify/bench_classify" --benchmark_min_time=1
section "toolcage check: whole process" "$here/check.sh" "$build"
section "toolcage hook: whole process" "$here/hook.sh" "$build"
section "toolcage hook with the fleet's collector: whole process" "$here/fleet.sh" "$build"
section "toolcage hook: 10,000 stale journals against none" "$here/journal.sh" "$build"
section "toolcage run: whole process" "$here/cage.sh" "$build"
section "toolcage-relay" "$here/relay.sh" "$build"
[ -x "$here/e2e.sh" ] && section "End to end: bare and through the hook's rewrite" "$here/e2e.sh" "$build"
exit $status
