#!/usr/bin/env bash
# Whole-process cost of a caged step: `toolcage run -- /bin/true` against bare /bin/true,
# bubblewrap (bwrap --ro-bind / / --dev /dev /bin/true) and the sandbox-runtime CLI
# (srt -c true), in one hyperfine run; prints each one's overhead over /bin/true and ratios.
# Then allowed commands in the read-only cage against bare and bubblewrap, with the caged step
# and a bubblewrap that makes namespaces as a step gets them in the same rounds. Then the network
# modes against each other: a private network namespace (cage.network netns)
# and Landlock's port rule (landlock), each without and with the relay. Last, steps that come
# after a pause (as an agent's do; as root the first join of a pids cgroup after a quiet spell
# once cost 10-30 ms), and the forge policy, whose relay allowlist reads npm's registry.
# Usage: bench/cage.sh [BUILD_DIR]   (default: ./build). Needs hyperfine; bwrap and srt optional.
# Goal: toolcage at most 2 ms over /bin/true without the relay, and the fastest of the three.
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
runs=${RUNS:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null || { echo "bench/cage.sh: hyperfine is not installed" >&2; exit 2; }

# The cage launcher: the toolcage binary, or the test launcher (same run_caged) when the
# binary is not built.
if [[ -x $build/toolcage ]]; then
  cage=("$build/toolcage" run --)
elif [[ -x $build/tests/escape/cage_runner ]]; then
  echo "note: $build/toolcage not built; timing tests/escape/cage_runner (the same run_caged)"
  cage=("$build/tests/escape/cage_runner" --policy "$here/profiles/default.json" --)
else
  echo "bench/cage.sh: neither $build/toolcage nor $build/tests/escape/cage_runner exists" >&2
  exit 2
fi

work=$(mktemp -d /tmp/toolcage-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"   # a small workspace: the cage's {workspace} is the current directory

names=("/bin/true" "toolcage run")
cmds=("/bin/true" "${cage[*]} /bin/true")

if command -v bwrap >/dev/null && bwrap --ro-bind / / --dev /dev /bin/true 2>/dev/null; then
  names+=("bwrap"); cmds+=("bwrap --ro-bind / / --dev /dev /bin/true")
else
  echo "note: bwrap missing or unable to run here (it needs user namespaces); skipped"
fi

# sandbox-runtime: from PATH, else installed into a temporary prefix with npm.
srt=$(command -v srt || true)
if [[ -z $srt ]] && command -v npm >/dev/null; then
  if npm install --silent --prefix "$work/srt" @anthropic-ai/sandbox-runtime >/dev/null 2>&1; then
    srt=$work/srt/node_modules/.bin/srt
  fi
fi
if [[ -n $srt ]]; then
  if why=$("$srt" -c true 2>&1); then
    names+=("srt"); cmds+=("$srt -c true")
  else
    echo "note: srt cannot run here: ${why//$'\n'/ }"
  fi
else
  echo "note: srt (npm @anthropic-ai/sandbox-runtime) is not available; skipped"
fi

args=()
for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
# The install above leaves dirty pages whose writeback would land in the middle of the timing.
sync
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/result.json" "${args[@]}" >/dev/null

python3 - "$work/result.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["/bin/true"]
cage = r["toolcage run"]
print(f"{'command':<16}{'mean ms':>10}{'median ms':>11}{'user+sys ms':>13}{'over true':>11}{'vs toolcage':>13}")
for name, x in r.items():
    cpu = (x["user"] + x["system"]) * 1e3
    print(f"{name:<16}{x['mean']*1e3:>10.2f}{x['median']*1e3:>11.2f}{cpu:>13.2f}"
          f"{(x['median']-base['median'])*1e3:>+11.2f}{x['median']/cage['median']:>12.2f}x")
over = (cage["median"] - base["median"]) * 1e3
fastest = min((x["median"], n) for n, x in r.items() if n != "/bin/true")[1]
print(f"toolcage run: {over:+.2f} ms over /bin/true (goal: at most 2 ms); fastest sandbox: {fastest}")
PY

# Allowed commands: the read-only cage (`toolcage run --read-only`, what the hook gives every
# allowed command) against the bare command and bubblewrap running the same, in one run, for
# /bin/true and for `ls` and `git status` in a small repository.
if [[ ${cage[0]} == "$build/toolcage" ]]; then
  git -c init.defaultBranch=main init -q "$work/repo"
  for i in $(seq 20); do echo "$i" >"$work/repo/f$i"; done
  git -C "$work/repo" add . && git -C "$work/repo" -c user.name=b -c user.email=b@b commit -qm b
  echo x >>"$work/repo/f1"
  # Interleaved rounds (bench/interleave.py), not hyperfine's one block per command: the
  # differences measured here are smaller than the drift between blocks on a shared machine.
  ro_args=()
  have_bwrap=0
  [[ " ${names[*]} " == *" bwrap "* ]] && have_bwrap=1
  for c in "/bin/true" "/bin/ls" "/usr/bin/git status"; do
    ro_args+=("bare: $c=$c" "read-only: $c=$build/toolcage run --read-only -- $c")
    ((have_bwrap)) && ro_args+=("bwrap: $c=bwrap --ro-bind / / --dev /dev $c")
  done
  # The caged step (the default policy) in the same rounds; and bubblewrap making namespaces
  # as a step gets them (user, PID, network and more, with a fresh /proc), the plain bwrap
  # above making only its mount namespace.
  ro_args+=("caged: /bin/true=$build/toolcage run -- /bin/true")
  if ((have_bwrap)) && bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc /bin/true 2>/dev/null; then
    ro_args+=("bwrap-ns: /bin/true=bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc /bin/true")
  fi
  (cd "$work/repo" && XDG_STATE_HOME="$work/state" \
    python3 "$here/bench/interleave.py" --rounds "$runs" --json "$work/ro.json" "${ro_args[@]}")
  echo
  python3 - "$work/ro.json" <<'PY2'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{'allowed command':<22}{'median ms':>10}{'over bare':>10}{'p25 over':>10}{'min over':>10}"
      f"{'bwrap over':>12}{'toolcage/bwrap':>16}")
worst = 0.0
for c in ("/bin/true", "/bin/ls", "/usr/bin/git status"):
    b, ro, bw = r[f"bare: {c}"], r[f"read-only: {c}"], r.get(f"bwrap: {c}")
    over = ro["median"] - b["median"]
    worst = max(worst, over)
    line = (f"{c:<22}{ro['median']:>10.2f}{over:>+10.2f}{ro['p25']-b['p25']:>+10.2f}"
            f"{ro['min']-b['min']:>+10.2f}")
    if bw:
        line += f"{bw['median']-b['median']:>+12.2f}{over/(bw['median']-b['median']):>15.2f}x"
    print(line)
print(f"read-only cage: at most {worst:+.2f} ms (median, interleaved rounds) over the bare command"
      " (goal: at most +2.5 ms)")
b, c, bw = r["bare: /bin/true"], r["caged: /bin/true"], r.get("bwrap: /bin/true")
line = f"caged step (run -- /bin/true): {c['median'] - b['median']:+.2f} ms over /bin/true"
if bw:
    line += (f", bwrap {bw['median'] - b['median']:+.2f} ms: "
             f"{(c['median'] - b['median']) / (bw['median'] - b['median']):.2f}x bwrap's cost (goal: at most 1.0x)")
print(line)
ns = r.get("bwrap-ns: /bin/true")
if ns:
    cost = ns["median"] - b["median"]
    ro = r["read-only: /bin/true"]["median"] - b["median"]
    print(f"bwrap with namespaces as a step's (--unshare-all --proc /proc): {cost:+.2f} ms over /bin/true; "
          f"read-only cage {ro / cost:.2f}x, caged step {(c['median'] - b['median']) / cost:.2f}x its cost")
PY2
fi

# The network modes. Policies extend a copy of profiles/default.json beside them; the relay
# allows one name it will never be asked for (its start and stop are what is timed).
if [[ ${cage[0]} != "$build/toolcage" ]]; then
  echo "note: the network modes need $build/toolcage (and toolcage-relay); skipped"
  exit 0
fi
if ! unshare --user true 2>/dev/null; then
  echo "note: no user namespaces here: netns mode cannot be timed"
  exit 0
fi
cp "$here/profiles/default.json" "$work/default.json"
net_names=(); net_cmds=()
for mode in landlock netns; do
  printf '{"name":"bench-%s","extends":"default","cage":{"network":"%s"}}\n' \
    "$mode" "$mode" >"$work/$mode.json"
  printf '{"name":"bench-%s-relay","extends":"default","cage":{"network":"%s"},
           "relay":{"enabled":true,"allow":["relay-bench.invalid"]}}\n' \
    "$mode" "$mode" >"$work/$mode-relay.json"
  net_names+=("$mode" "$mode + relay")
  net_cmds+=("$build/toolcage run --policy $work/$mode.json -- /bin/true"
             "$build/toolcage run --policy $work/$mode-relay.json -- /bin/true")
done
args=(-n "/bin/true" "/bin/true")
for i in "${!net_cmds[@]}"; do args+=(-n "${net_names[$i]}" "${net_cmds[$i]}"); done
# No proxy of the machine's: the relay would be given it as upstream.
env -u https_proxy -u HTTPS_PROXY -u http_proxy XDG_STATE_HOME="$work/state" \
  hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/net.json" "${args[@]}" >/dev/null

echo
python3 - "$work/net.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["/bin/true"]["median"]
print(f"{'network mode':<18}{'mean ms':>10}{'median ms':>11}{'over true':>11}")
for name, x in r.items():
    print(f"{name:<18}{x['mean']*1e3:>10.2f}{x['median']*1e3:>11.2f}{(x['median']-base)*1e3:>+11.2f}")
ms = lambda a, b: (r[a]["median"] - r[b]["median"]) * 1e3
print(f"netns start-up cost: {ms('netns', 'landlock'):+.2f} ms over landlock without the relay, "
      f"{ms('netns + relay', 'landlock + relay'):+.2f} ms with it; "
      f"the relay itself: {ms('landlock + relay', 'landlock'):+.2f} ms (landlock), "
      f"{ms('netns + relay', 'netns'):+.2f} ms (netns)")
PY

# Steps after a pause of 0.3 s each, and the forge policy ({npm_registry} in relay.allow).
pause_runs=${PAUSE_RUNS:-20}
args=(-n "/bin/true" "/bin/true"
      -n "toolcage run" "$build/toolcage run --policy $work/default.json -- /bin/true"
      -n "landlock + relay" "$build/toolcage run --policy $work/landlock-relay.json -- /bin/true")
env -u https_proxy -u HTTPS_PROXY -u http_proxy XDG_STATE_HOME="$work/state" \
  hyperfine -N --prepare "sleep 0.3" --runs "$pause_runs" --export-json "$work/pause.json" \
  "${args[@]}" >/dev/null
cp "$here/profiles/forge.json" "$work/forge.json"
env -u https_proxy -u HTTPS_PROXY -u http_proxy XDG_STATE_HOME="$work/state" \
  hyperfine -N --warmup 3 --runs "$pause_runs" --export-json "$work/forge.json.out" \
  -n "default" "$build/toolcage run --policy $work/default.json -- /bin/true" \
  -n "forge" "$build/toolcage run --policy $work/forge.json -- /bin/true" >/dev/null

echo
python3 - "$work/pause.json" "$work/forge.json.out" <<'PY'
import json, sys
p = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
f = {x["command"]: x for x in json.load(open(sys.argv[2]))["results"]}
base = p["/bin/true"]["median"]
print(f"{'after a 0.3 s pause':<22}{'mean ms':>10}{'median ms':>11}{'max ms':>9}{'over true':>11}")
for name, x in p.items():
    print(f"{name:<22}{x['mean']*1e3:>10.2f}{x['median']*1e3:>11.2f}{x['max']*1e3:>9.2f}"
          f"{(x['median']-base)*1e3:>+11.2f}")
print(f"forge ({{npm_registry}} and the relay): {f['forge']['median']*1e3:.2f} ms median, "
      f"default: {f['default']['median']*1e3:.2f} ms")
PY
