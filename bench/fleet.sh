#!/usr/bin/env bash
# Whole-process cost of `toolcage hook` on a typical Hermes payload with the host's collector
# configured (share/toolcage/fleet.json naming a real rsyslogd on loopback, TCP), against the
# same binary with no collector, and with a collector named but down (its port refuses), in
# interleaved rounds straight from posix_spawn: every round meets the same machine.
# Goal: the hook with a collector within 10% of the hook without one.
# Usage: bench/fleet.sh [BUILD_DIR] [ROUNDS]   (default: build, 400)
set -euo pipefail

BUILD="${1:-build}"
ROUNDS="${2:-400}"
BIN="$(cd "$BUILD" && pwd)/toolcage"
[ -x "$BIN" ] || { echo "no toolcage binary at $BIN; build it first" >&2; exit 2; }
RSYSLOGD="$(command -v rsyslogd || echo /usr/sbin/rsyslogd)"
[ -x "$RSYSLOGD" ] || { echo "rsyslogd is not installed (apt-get install rsyslog)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/toolcage-bench-fleet-XXXXXX)
cleanup() {
    [ -f "$WORK/rsyslogd.pid" ] && kill "$(cat "$WORK/rsyslogd.pid")" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(port)
DOWN=$(port)

# Three installs of the same binary (`cp` writes it in one piece, as an install does: each
# starts alike): no fleet.json, a collector that is up, one that is down.
for p in none up down; do
    mkdir -p "$WORK/$p/bin" "$WORK/$p/share/toolcage"
    cp "$BIN" "$WORK/$p/bin/toolcage"
    cp -r "$(dirname "$BIN")/share/toolcage/profiles" "$WORK/$p/share/toolcage/"
done
echo "{\"log\": {\"syslog\": \"tcp://127.0.0.1:$PORT\"}}" > "$WORK/up/share/toolcage/fleet.json"
echo "{\"log\": {\"syslog\": \"tcp://127.0.0.1:$DOWN\"}}" > "$WORK/down/share/toolcage/fleet.json"

mkdir -p "$WORK/rsyslog-work"
cat > "$WORK/rsyslog.conf" <<CONF
global(workDirectory="$WORK/rsyslog-work" maxMessageSize="64k")
module(load="imtcp")
template(name="ocsf" type="string" string="%msg%\n")
ruleset(name="fleet") { action(type="omfile" file="$WORK/events.log" template="ocsf") }
input(type="imtcp" address="127.0.0.1" port="$PORT" ruleset="fleet")
CONF
"$RSYSLOGD" -f "$WORK/rsyslog.conf" -i "$WORK/rsyslogd.pid"   # forks into the background
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break; sleep 0.05; done

mkdir -p "$WORK/ws/.git" "$WORK/home/.hermes"
export HOME="$WORK/home" HERMES_HOME="$WORK/home/.hermes"
PAYLOAD="$WORK/payload.json"
python3 - "$WORK/ws" > "$PAYLOAD" <<'PY'
import json, sys
ws = sys.argv[1]
print(json.dumps({
    "hook_event_name": "pre_tool_call", "tool_name": "terminal",
    "tool_input": {"command": "npm test -- --runInBand 2>&1 | tail -n 50", "workdir": ws,
                   "background": False, "timeout": 180, "pty": False},
    "session_id": "20260101_120000_abcdef", "cwd": ws, "profile": "default",
    "extra": {"task_id": "default", "tool_call_id": "call_7f3a", "turn_id": "turn_12"},
}))
PY

python3 - "$WORK" "$PAYLOAD" "$ROUNDS" <<'PY'
import os, statistics, sys, time
work, payload, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = {"no collector": "none", "collector up (rsyslogd, tcp)": "up", "collector down (refused)": "down"}
devnull = os.open(os.devnull, os.O_WRONLY)
times = {k: [] for k in names}
cpu = {k: [] for k in names}
for rnd in range(rounds + 30):
    for name, p in names.items():
        env = dict(os.environ, TOOLCAGE_LOG=f"{work}/{p}.jsonl")
        argv = [f"{work}/{p}/bin/toolcage", "hook"]
        fd = os.open(payload, os.O_RDONLY)
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, _, ru = os.wait4(pid, 0)
        dt = time.perf_counter() - t0
        os.close(fd)
        if rnd >= 30:
            times[name].append(dt)
            cpu[name].append(ru.ru_utime + ru.ru_stime)
# Wall-clock (spawn to exit) and the process's own CPU time (user + system, from wait4): on a
# loaded machine the wall clock mostly measures the neighbours, the CPU time less so.
base = statistics.median(times["no collector"])
cpu_base = statistics.mean(cpu["no collector"])
print(f"{'hook':34s} {'median':>9s} {'p25':>9s}  ratio   {'CPU mean':>9s}  ratio")
for name, t in times.items():
    t.sort()
    med = statistics.median(t)
    c = statistics.mean(cpu[name])
    print(f"{name:34s} {med*1e3:7.3f}ms {t[len(t)//4]*1e3:7.3f}ms  {med/base:5.3f}x  {c*1e3:7.3f}ms  {c/cpu_base:5.3f}x")
print("goal: collector up within 1.10x of no collector")
lines = sum(1 for _ in open(f"{work}/up.jsonl"))
unsent = f"{work}/down.jsonl.unsent"
print(f"collector up: {lines} lines logged; collector down: "
      f"{sum(1 for _ in open(unsent)) if os.path.exists(unsent) else 0} events kept in .unsent")
PY
sleep 1
echo "events the collector wrote: $(wc -l < "$WORK/events.log")"
