#!/usr/bin/env bash
# What the relay's handshake check costs a connection: CONNECT, then a whole TLS handshake with
# a local openssl s_server, through a relay built without the check and one built with it (and
# directly, for scale), in interleaved rounds. Prints a markdown table of medians.
#
#   bench/relay_handshake.sh RELAY_BEFORE RELAY_AFTER [rounds] [connects per round]
#
# Both relays run with the same options on loopback; the client is Python's ssl (OpenSSL).
set -euo pipefail

BEFORE=${1:?usage: bench/relay_handshake.sh RELAY_BEFORE RELAY_AFTER [rounds] [connects]}
AFTER=${2:?usage: bench/relay_handshake.sh RELAY_BEFORE RELAY_AFTER [rounds] [connects]}
ROUNDS=${3:-5}
CONNECTS=${4:-200}
. "$(dirname "$0")/relay_lib.sh"
bench_work handshake

make_tls_cert
TLS_PORT=$(free_port)
openssl s_server -accept "127.0.0.1:$TLS_PORT" -cert "$WORK/cert.pem" -key "$WORK/key.pem" \
  -naccept 1000000 -quiet >/dev/null 2>&1 </dev/null &
PIDS+=($!)
make_token

start_relay() {  # binary name: runs it in this shell (its pid kept), ready file WORK/name.ready
  "$1" --listen 127.0.0.1:0 --allow "localhost:$TLS_PORT" --allow-private \
    --token-file "$WORK/token" --log "$WORK/$2.log" --ready-fd 3 3>"$WORK/$2.ready" \
    >/dev/null 2>&1 &
  PIDS+=($!)
}
start_relay "$BEFORE" before
start_relay "$AFTER" after
P_BEFORE=$(wait_ready "$WORK/before.ready")
P_AFTER=$(wait_ready "$WORK/after.ready")
wait_listening "$TLS_PORT"

python3 - "$TLS_PORT" "$P_BEFORE" "$P_AFTER" "$(cat "$WORK/token")" "$WORK/cert.pem" \
  "$ROUNDS" "$CONNECTS" <<'PY'
import base64, socket, ssl, statistics, sys, time
tls_port, p_before, p_after = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
token, cert, rounds, connects = sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
ctx = ssl.create_default_context(cafile=cert)
auth = base64.b64encode(f"toolcage:{token}".encode()).decode()

def one(proxy_port):
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", proxy_port or tls_port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if proxy_port:
        s.sendall(f"CONNECT localhost:{tls_port} HTTP/1.1\r\nHost: localhost:{tls_port}\r\n"
                  f"Proxy-Authorization: Basic {auth}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 200"), head
    t = ctx.wrap_socket(s, server_hostname="localhost")  # the whole handshake
    us = (time.perf_counter() - t0) * 1e6
    t.close()
    return us

samples = {"direct": [], "relay without the check": [], "relay with the check": []}
ports = {"direct": 0, "relay without the check": p_before, "relay with the check": p_after}
for name in samples: one(ports[name])  # warm up
for _ in range(rounds):
    for name in samples:
        samples[name] += [one(ports[name]) for _ in range(connects)]
base = statistics.median(samples["relay without the check"])
print("| path | CONNECT + TLS handshake p50 (µs) | p90 (µs) | p50 − relay without the check (µs) |")
print("|---|---:|---:|---:|")
for name, xs in samples.items():
    xs.sort()
    p50, p90 = statistics.median(xs), xs[int(len(xs) * 0.9)]
    print(f"| {name} | {p50:.0f} | {p90:.0f} | {p50 - base:+.0f} |")
PY
