#!/usr/bin/env bash
# What the cage costs a whole agent step: each command of the end-to-end tests run bare and
# through the hook's rewrite (toolcage run, plus the relay for npm), with hyperfine; then a
# session of typical agent commands (two thirds read-only) bare against through the hook.
# Prints a markdown table with the caged/bare ratio. Takes a minute or two.
#
#   bench/e2e.sh [build-dir]        (default: build, the Release build install.sh makes, with toolcage and
#                                    toolcage-relay built)
#
# Needs hyperfine, git, make, cc; npm rows are left out when npm or its registry is missing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
TOOLCAGE="$BUILD/toolcage"
[ -x "$TOOLCAGE" ] && [ -x "$BUILD/toolcage-relay" ] \
    || { echo "e2e.sh: build toolcage and toolcage-relay in $BUILD first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "e2e.sh: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
source "$ROOT/tests/e2e/lib.sh"
make_work bench
RUNS=${RUNS:-5}
DEFAULT="$ROOT/profiles/default.json"
HOME_DIR="$WORK/home"
mkdir -p "$HOME_DIR"
ROWS="$WORK/rows.tsv"
: > "$ROWS"

# bench NAME WORKDIR PREPARE BARE CAGED: mean seconds of each, one row.
bench() {
    local name="$1" wd="$2" prepare="$3" bare="$4" caged="$5"
    echo "e2e.sh: $name" >&2
    (cd "$wd" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" LANG=C.UTF-8 \
        hyperfine -N --style none --runs "$RUNS" --warmup 1 --prepare "bash -c '$prepare'" \
        --export-json "$WORK/$name.json" -n bare "bash -c '$bare'" -n caged "bash -c '$caged'" >/dev/null) \
        || fail "hyperfine failed for $name"
    node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).results;
const m = (n) => r.find((x) => x.command === n);
const ms = (x) => (x.mean * 1000).toFixed(1) + " ± " + (x.stddev * 1000).toFixed(1);
console.log([process.argv[2], ms(m("bare")), ms(m("caged")), (m("caged").mean / m("bare").mean).toFixed(2)].join("\t"));
' "$WORK/$name.json" "$name" >> "$ROWS"
}
# single quotes inside a hyperfine command: the rewrite is quoted for bash -c '...'
q() { printf '%s' "$1" | sed "s/'/'\\\\''/g"; }

# 1. git clone of a local repository + make, in a fresh directory each run
WS="$WORK/ws"
SRC="$WORK/src"
mkdir -p "$WS" "$SRC"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > "$SRC/main.c"
printf 'hello: main.c\n\t$(CC) -O2 -o $@ main.c\n' > "$SRC/Makefile"
git -C "$SRC" init -q && git -C "$SRC" -c user.name=t -c user.email=t@t add . \
    && git -C "$SRC" -c user.name=t -c user.email=t@t commit -qm x
git clone -q --bare "$SRC" "$WS/origin.git"
CMD="git clone -q origin.git project && make -s -C project"
REWRITE=$(hermes_rewrite "$DEFAULT" "$CMD" "$WS")
# Once first, checked: a caged step that fails fast would look cheap.
run_as_agent "$WS" "$HOME_DIR" "$REWRITE"
[ "$RUN_RC" -eq 0 ] && [ -x "$WS/project/hello" ] || fail "the caged clone + make failed: $RUN_OUT"
rm -rf "$WS/project"
bench "git clone + make" "$WS" "rm -rf $WS/project" "$CMD" "$(q "$REWRITE")"

# 2. npm install with a warm cache (the relay starts; --prefer-offline keeps it off the wire)
if command -v npm >/dev/null && timeout 60 npm view is-number@7.0.0 version >/dev/null 2>&1; then
    NWS="$WORK/npm-project"
    CACHE="$WORK/npm-cache"
    mkdir -p "$NWS" "$CACHE"
    echo '{"name":"b","version":"1.0.0","private":true}' > "$NWS/package.json"
    (cd "$NWS" && npm_config_cache="$CACHE" npm install -s --no-audit --no-fund is-number@7.0.0 >/dev/null) \
        || fail "warming the npm cache failed"
    POLICY="$WORK/npm-policy.json"
    cat > "$POLICY" <<JSON
{
  "name": "bench-npm",
  "extends": "default",
  "cage": {"read": ["$CACHE"], "write": ["$CACHE"], "env_set": {"npm_config_cache": "$CACHE"}},
  "relay": {"enabled": true, "allow": ["{npm_registry}"]}
}
JSON
    CMD="npm install -s --prefer-offline --no-audit --no-fund is-number@7.0.0"
    REWRITE=$(hermes_rewrite "$POLICY" "$CMD" "$NWS")
    run_as_agent "$NWS" "$HOME_DIR" "$REWRITE"
    [ "$RUN_RC" -eq 0 ] && [ -f "$NWS/node_modules/is-number/package.json" ] \
        || fail "the caged npm install failed: $RUN_OUT"
    bench "npm install (warm cache)" "$NWS" "rm -rf $NWS/node_modules $NWS/package-lock.json" \
        "npm_config_cache=$CACHE $CMD" "$(q "$REWRITE")"
else
    echo "e2e.sh: npm or its registry is missing; no npm row" >&2
fi

# 3. A session of typical agent commands, two thirds read-only, run one after another: bare,
#    and as an agent runs them through the hook (the hook process for each command, then its
#    answer: the read-only cage for the allowed ones, the cage for the rest, builtins as sent).
SWS="$WORK/session"
mkdir -p "$SWS/src"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > "$SWS/src/main.c"
printf 'hello: src/main.c\n\t$(CC) -O2 -o $@ src/main.c\n' > "$SWS/Makefile"
printf 'import sys\nopen("gen.txt", "w").write("generated\\n")\n' > "$SWS/gen.py"
for i in $(seq 30); do printf 'line %s\nTODO item %s\n' "$i" "$i" > "$SWS/src/f$i.txt"; done
git -C "$SWS" init -q && git -C "$SWS" add . \
    && git -C "$SWS" -c user.name=t -c user.email=t@t commit -qm x
SESSION=(
    "git status"                      # read-only
    "ls -la"
    "cat Makefile"
    "grep -rn TODO src | head -5"
    "git log --oneline -5"
    "find . -name '*.c' -not -path './.git/*'"
    "wc -l src/*.txt | tail -1"
    "git diff --stat"
    "head -3 src/main.c"
    "cd src && ls"                    # the shell moves; ls runs read-only
    "make -s"                         # caged
    "sed -i 's/hi/hello/' src/main.c"
    "python3 gen.py"
    "git add -A && git -c user.name=t -c user.email=t@t commit -qm step"
    "pwd"                             # a builtin: as sent
)
: > "$WORK/session-bare.sh"
: > "$WORK/session-hooked.sh"
n_ro=0
for c in "${SESSION[@]}"; do
    payload=$(hermes_payload "$c" "$SWS")
    answer=$(printf '%s' "$payload" | "$TOOLCAGE" hook --agent hermes --policy "$DEFAULT") \
        || fail "the hook refused a session command: $c"
    run=$(node -e 'const a = JSON.parse(process.argv[1]); console.log(a.action === "modify" ? a.args.command : process.argv[2]);' \
        "$answer" "$c")
    case "$run" in *"--read-only"*) n_ro=$((n_ro + 1)) ;; esac
    printf '%s >/dev/null 2>&1\n' "(cd '$SWS' && $c)" >> "$WORK/session-bare.sh"
    printf '%s\n' "printf '%s' '$(q "$payload")' | '$TOOLCAGE' hook --agent hermes --policy '$DEFAULT' >/dev/null" \
        >> "$WORK/session-hooked.sh"
    printf '%s >/dev/null 2>&1\n' "(cd '$SWS' && $run)" >> "$WORK/session-hooked.sh"
done
BASE_COMMIT=$(git -C "$SWS" rev-parse HEAD)
RESET="git -C '$SWS' reset -q --hard $BASE_COMMIT && git -C '$SWS' clean -qfdx"
bash -c "$RESET"
bash "$WORK/session-hooked.sh"
[ -f "$SWS/gen.txt" ] && [ -x "$SWS/hello" ] || fail "the hooked session did not do its work"
bash -c "$RESET"
echo "e2e.sh: session (${#SESSION[@]} commands, $n_ro in the read-only cage)" >&2
bench "session: ${#SESSION[@]} commands ($n_ro read-only)" "$SWS" "$RESET" \
    "bash $WORK/session-bare.sh" "bash $WORK/session-hooked.sh"

echo
echo "| step | bare (ms) | caged (ms) | caged / bare |"
echo "|---|---:|---:|---:|"
while IFS=$'\t' read -r name bare caged ratio; do
    echo "| $name | $bare | $caged | $ratio |"
done < "$ROWS"
echo
echo "$RUNS runs each after one warm-up; caged = the hook's rewrite run with bash (toolcage run); for"
echo "the session, the hook process for every command as well."
