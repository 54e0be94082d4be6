#!/bin/sh
# Builds one libFuzzer target with clang++-14 and runs it for a number of seconds.
#   fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#   e.g. fuzz/run.sh shell_parse_fuzz 60
# The target's area is the part of its name before the first '_', after a leading "fuzz_"
# (shell_parse_fuzz -> shell, fuzz_relay_request -> relay); fuzz/<area>/seed.sh DIR TARGET, when
# present, writes the seed corpus. Crashes are written to
# $FUZZ_OUT (default build-fuzz/findings/TARGET) and make the script fail.
set -eu
target=${1:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
name=${target#fuzz_}
area=${name%%_*}

if [ ! -f "$build/CMakeCache.txt" ]; then
    CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DTOOLCAGE_FUZZ=ON -DTOOLCAGE_TESTS=OFF -DTOOLCAGE_BENCH=OFF
fi
cmake --build "$build" --target "$target" -j"${FUZZ_JOBS:-2}"
binary=$(find "$build" -type f -name "$target" -perm -u+x | head -n 1)
[ -n "$binary" ] || { echo "fuzz/run.sh: built $target but cannot find its binary under $build" >&2; exit 1; }

corpus=$(mktemp -d "${TMPDIR:-/tmp}/toolcage-fuzz-$target.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
if [ -x "$root/fuzz/$area/seed.sh" ]; then
    "$root/fuzz/$area/seed.sh" "$corpus" "$target"
fi
dict=""
if [ -f "$root/fuzz/$area/$target.dict" ]; then
    dict="-dict=$root/fuzz/$area/$target.dict"
fi
out=${FUZZ_OUT:-$build/findings/$target}
mkdir -p "$out"
"$binary" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$out/" -print_final_stats=1 $dict "$@" "$corpus"
