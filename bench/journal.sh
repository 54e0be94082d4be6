#!/usr/bin/env bash
# The hook against its peers, and flat however many journals other workspaces left: the
# whole-process cost of `toolcage hook` (a typical Hermes payload) with no journal entries and
# with 10,000 stale entries of other workspaces, `/bin/cat` reading the same payload and a
# minimal Python hook (python3 parsing it as JSON), all four in each of the interleaved rounds
# (the two journal directories swapped into place by rename between runs, outside the timing).
# Reports hook/cat (goal <= 1.5x), python/hook (goal >= 15x) and stale/none (goal 1.0, flat).
# Run as root it runs the hooks as nobody, whose state directory is /tmp/toolcage-state-65534
# (nobody has no home): the user's own state is never touched.
# Usage: bench/journal.sh [BUILD_DIR] [ROUNDS]   (default: build, 300)
set -euo pipefail

BUILD="${1:-build}"
ROUNDS="${2:-300}"
BIN="$(cd "$BUILD" && pwd)/toolcage"
[ -x "$BIN" ] || { echo "no toolcage binary at $BIN; build it first" >&2; exit 2; }

WORK=$(mktemp -d /tmp/toolcage-bench-journal-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws/.git"
chmod 755 "$WORK"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$WORK"

python3 - "$BIN" "$WORK" "$ROUNDS" <<'PY'
import json, os, random, shutil, statistics, subprocess, sys, time
bin_, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
if os.getuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
ws = os.path.join(work, "ws")
payload = os.path.join(work, "payload.json")
with open(payload, "w") as f:
    json.dump({"hook_event_name": "pre_tool_call", "tool_name": "terminal",
               "tool_input": {"command": "npm test 2>&1 | tail -n 50", "workdir": ws},
               "session_id": "20260101_120000_abcdef", "cwd": ws, "profile": "default"}, f)
env = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(work, "home")}
devnull = os.open(os.devnull, os.O_WRONLY)

def spawn(argv):
    fd = os.open(payload, os.O_RDONLY)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, st = os.waitpid(pid, 0)
    took = (time.perf_counter_ns() - t0) / 1e6
    os.close(fd)
    if os.waitstatus_to_exitcode(st) != 0:
        raise SystemExit("journal.sh: " + argv[0] + " failed")
    return took

def hook():
    return spawn([bin_, "hook", "--agent", "hermes"])

hook()  # makes the state directory
state = json.loads(subprocess.run([bin_, "doctor", "--json"], capture_output=True, text=True, env=env).stdout)["state_dir"]
root = os.path.join(state, "journal")
empty, stale = root + ".bench-empty", root + ".bench-stale"
saved = root + ".bench-saved"
if os.path.exists(root):
    os.rename(root, saved)
os.mkdir(empty, 0o700)
os.mkdir(stale, 0o700)
# 10,000 workspaces that no longer exist, each with an unfinished journal (a supervisor long gone).
for i in range(10000):
    d = os.path.join(stale, "%016x" % (0x5eed0000000000 + i))
    os.mkdir(d, 0o700)
    with open(os.path.join(d, "workspace"), "w") as f:
        f.write("/nonexistent/ws-%d\n" % i)
    fd = os.open(os.path.join(d, "1-stale.journal"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"toolcage-journal 1\n")
    os.close(fd)

times = {"none": [], "10000 stale": [], "/bin/cat": [], "python3 json.load": []}
peers = {"/bin/cat": ["/bin/cat"], "python3 json.load": ["/usr/bin/python3", "-c", "import json,sys; json.load(sys.stdin)"]}
try:
    def hook_with(src):
        os.rename(src, root)
        try:
            return hook()
        finally:
            os.rename(root, src)
    runs = [("none", lambda: hook_with(empty)), ("10000 stale", lambda: hook_with(stale))]
    runs += [(name, lambda argv=argv: spawn(argv)) for name, argv in peers.items()]
    # A new order each round (a fixed seed): in a rotation each command mostly follows the
    # same one, and whatever follows python3 pays for what it left in the caches.
    rng = random.Random(1)
    for r in range(20 + rounds):
        order = list(runs)
        rng.shuffle(order)
        for name, run in order:
            took = run()
            if r >= 20:
                times[name].append(took)
finally:
    shutil.rmtree(stale, ignore_errors=True)
    shutil.rmtree(empty, ignore_errors=True)
    if os.path.exists(saved):
        os.rename(saved, root)
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in times.items():
    v.sort()
    print(f"{k:18s} median {med[k]:7.3f} ms   p25 {v[len(v)//4]:7.3f} ms   min {v[0]:7.3f} ms")
print(f"hook / cat:         {med['none'] / med['/bin/cat']:.2f}x   (goal: at most 1.5x)")
print(f"python / hook:      {med['python3 json.load'] / med['none']:.1f}x   (goal: at least 15x)")
print(f"10000 stale / none: {med['10000 stale'] / med['none']:.3f}x   (goal: 1.0, flat)")
PY
