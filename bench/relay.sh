#!/usr/bin/env bash
# Compares toolcage-relay with tinyproxy and squid (and no proxy at all) on loopback:
# CONNECT-and-first-byte latency, round trips inside a tunnel, one stream's throughput, and
# our relay's peak RSS while it holds 1,000 idle tunnels. Prints a markdown table.
#
#   bench/relay.sh [build-dir]        (default: build-bench, a Release build)
#
# Installs the Debian packages tinyproxy and squid when they are missing. Each proxy runs in
# the foreground on a free loopback port with a temporary configuration and is stopped after.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-bench}
. "$ROOT/bench/relay_lib.sh"
bench_work relay

log() { echo "relay.sh: $*" >&2; }

# --- tools ---------------------------------------------------------------------------------
if ! command -v tinyproxy >/dev/null || ! command -v squid >/dev/null; then
  log "installing tinyproxy and squid"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tinyproxy squid >/dev/null
fi
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTOOLCAGE_TESTS=OFF >/dev/null
cmake --build "$BUILD" --target toolcage-relay relay_bench_client -j2 >/dev/null
RELAY=$BUILD/toolcage-relay
CLIENT=$BUILD/bench/relay/relay_bench_client
ulimit -n 16384

# --- proxies: each starter prints "PORT PID" -----------------------------------------------
start_ours() {  # echo_port sink_port
  local ready="$WORK/ours.ready"
  "$RELAY" --listen 127.0.0.1:0 --allow "localhost:$1" --allow "localhost:$2" --allow-private \
    --token-file "$WORK/token" --max-tunnels 4096 --log "$WORK/ours.log" --ready-fd 3 \
    3>"$ready" &
  local pid=$!
  echo "$(wait_ready "$ready") $pid"
}

start_tinyproxy() {
  local port; port=$(free_port)
  cat >"$WORK/tinyproxy.conf" <<CONF
User nobody
Group nogroup
Port $port
Listen 127.0.0.1
Timeout 600
MaxClients 4096
LogLevel Critical
Allow 127.0.0.1
DisableViaHeader Yes
CONF
  tinyproxy -d -c "$WORK/tinyproxy.conf" >"$WORK/tinyproxy.out" 2>&1 &
  local pid=$!
  wait_listening "$port"
  echo "$port $pid"
}

start_squid() {
  local port; port=$(free_port)
  mkdir -p "$WORK/squid"
  chown proxy: "$WORK/squid" 2>/dev/null || true
  cat >"$WORK/squid.conf" <<CONF
http_port 127.0.0.1:$port
http_access allow all
cache deny all
cache_mem 8 MB
access_log none
cache_store_log none
cache_log $WORK/squid/cache.log
pid_filename $WORK/squid/squid.pid
coredump_dir $WORK/squid
shutdown_lifetime 0 seconds
max_filedescriptors 16384
CONF
  squid -N -f "$WORK/squid.conf" >"$WORK/squid.out" 2>&1 &
  local pid=$!
  wait_listening "$port"
  echo "$port $pid"
}

make_token
TOKEN=$(cat "$WORK/token")

# run_one NAME STARTER [client args...]: starts the client (which opens its target servers and
# prints their ports), then the proxy, then lets the client measure.
run_one() {
  local name=$1 starter=$2; shift 2
  coproc CL { "$CLIENT" --name "$name" "$@" 2>&1; }
  local line; read -r line <&"${CL[0]}"
  local echo_port sink_port; read -r _ echo_port sink_port <<<"$line"
  local proxy_port=0 proxy_pid=""
  if [[ $starter != none ]]; then
    read -r proxy_port proxy_pid < <($starter "$echo_port" "$sink_port")
    PIDS+=("$proxy_pid")
  fi
  echo "$proxy_port $proxy_pid" >&"${CL[1]}"
  local out; out=$(cat <&"${CL[0]}")
  wait "$CL_PID" || true
  if [[ -n $proxy_pid ]]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
  echo "$out"
}

declare -A R
for spec in "direct none" "toolcage-relay start_ours --proxy-user toolcage:$TOKEN" \
            "tinyproxy start_tinyproxy" "squid start_squid"; do
  read -r name starter extra <<<"$spec"
  log "measuring $name"
  # shellcheck disable=SC2086
  out=$(run_one "$name" "$starter" $extra)
  line=$(grep '^result ' <<<"$out" || true)
  [[ -n $line ]] || { log "$name failed: $out"; exit 1; }
  R[$name]=$line
done

# Our relay's memory with 1,000 idle tunnels (the client reads its VmRSS/VmHWM).
log "holding 1,000 idle tunnels through toolcage-relay"
idle_line=$(run_one toolcage-relay start_ours --idle 1000 --proxy-user "toolcage:$TOKEN" | grep '^idle ' || true)
[[ -n $idle_line ]] || { log "idle run failed"; exit 1; }

# --- table ------------------------------------------------------------------------------------
python3 - "$idle_line" "${R[direct]}" "${R[toolcage-relay]}" "${R[tinyproxy]}" "${R[squid]}" <<'PY'
import sys, re
idle = sys.argv[1]
rows = {}
for line in sys.argv[2:]:
    parts = line.split()
    rows[parts[1]] = {k: float(v) for k, v in (p.split("=") for p in parts[2:])}
ours = rows["toolcage-relay"]
print("| proxy | connect+first byte p50 (µs) | p99 (µs) | RTT in tunnel p50 (µs) | p99 (µs) | one stream (MiB/s) | ours ÷ this, throughput | this ÷ ours, connect p50 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name in ["direct", "toolcage-relay", "tinyproxy", "squid"]:
    r = rows[name]
    print(f"| {name} | {r['connect_p50_us']:.0f} | {r['connect_p99_us']:.0f} | {r['rtt_p50_us']:.1f} | "
          f"{r['rtt_p99_us']:.1f} | {r['bulk_mib_s']:.0f} | {ours['bulk_mib_s']/r['bulk_mib_s']:.2f}× | "
          f"{r['connect_p50_us']/ours['connect_p50_us']:.2f}× |")
m = re.search(r"rss_kib=(\d+) hwm_kib=(\d+)", idle)
if m:
    print()
    print(f"toolcage-relay holding 1,000 idle tunnels: VmRSS {int(m.group(1))/1024:.1f} MiB, "
          f"peak (VmHWM) {int(m.group(2))/1024:.1f} MiB (goal < 32 MiB)")
PY
