#!/usr/bin/env bash
# What TLS inspection costs: CONNECT + TLS handshake + one small GET (latency), and a 32 MiB GET
# (throughput), directly, through the relay passing the host through (an opaque tunnel), and
# through the same relay inspecting another port of the same server (its TLS ended with
# toolcage's CA, the request read, a verified TLS of its own upstream), in interleaved rounds of
# one run. Prints a markdown table of medians, each a ratio against the passed-through tunnel.
#
#   bench/relay_inspect.sh RELAY [rounds] [connects per round]
set -euo pipefail

RELAY=${1:?usage: bench/relay_inspect.sh RELAY [rounds] [connects]}
ROUNDS=${2:-5}
CONNECTS=${3:-100}
. "$(dirname "$0")/relay_lib.sh"
bench_work inspect

make_tls_cert
mkdir "$WORK/www"
echo ok >"$WORK/www/small"
head -c $((32 * 1024 * 1024)) /dev/zero >"$WORK/www/big"
# Two ports of one server (openssl s_server -WWW serves files of its directory, one per connection).
PASS_PORT=$(free_port)
INSPECT_PORT=$(free_port)
for port in "$PASS_PORT" "$INSPECT_PORT"; do
  (cd "$WORK/www" && exec openssl s_server -accept "127.0.0.1:$port" -cert "$WORK/cert.pem" \
    -key "$WORK/key.pem" -WWW -naccept 1000000 -quiet >/dev/null 2>&1 </dev/null) &
  PIDS+=($!)
done
make_token
mkdir -m 0700 "$WORK/ca"
cat >"$WORK/inspect.json" <<JSON
{"ca_dir": "$WORK/ca", "inspect": ["localhost:$INSPECT_PORT"], "upstream_ca": "$WORK/cert.pem",
 "credentials": [], "requests": {}}
JSON
"$RELAY" --listen 127.0.0.1:0 --allow "localhost:$PASS_PORT" "localhost:$INSPECT_PORT" --allow-private \
  --inspect-file "$WORK/inspect.json" --token-file "$WORK/token" --log "$WORK/relay.log" \
  --ready-fd 3 3>"$WORK/ready" >/dev/null 2>&1 &
PIDS+=($!)
RELAY_PORT=$(wait_ready "$WORK/ready")
for port in "$PASS_PORT" "$INSPECT_PORT"; do wait_listening "$port"; done

python3 - "$PASS_PORT" "$INSPECT_PORT" "$RELAY_PORT" "$(cat "$WORK/token")" "$WORK/cert.pem" \
  "$WORK/ca/ca.pem" "$ROUNDS" "$CONNECTS" <<'PY'
import base64, socket, ssl, statistics, sys, time
pass_port, inspect_port, relay_port = map(int, sys.argv[1:4])
token, cert, toolcage_ca, rounds, connects = sys.argv[4], sys.argv[5], sys.argv[6], int(sys.argv[7]), int(sys.argv[8])
server_ctx = ssl.create_default_context(cafile=cert)
inspect_ctx = ssl.create_default_context(cafile=toolcage_ca)
auth = base64.b64encode(f"toolcage:{token}".encode()).decode()

def get(path, proxied, port, ctx):
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", relay_port if proxied else port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if proxied:
        s.sendall(f"CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n"
                  f"Proxy-Authorization: Basic {auth}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 200"), head
    t = ctx.wrap_socket(s, server_hostname="localhost")
    t.sendall(f"GET /{path} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n".encode())
    n = 0
    while True:
        b = t.recv(1 << 16)
        if not b:
            break
        n += len(b)
    t.close()
    return time.perf_counter() - t0, n

paths = {"direct": (False, pass_port, server_ctx), "relay, passed through": (True, pass_port, server_ctx),
         "relay, inspected": (True, inspect_port, inspect_ctx)}
lat = {k: [] for k in paths}
thr = {k: [] for k in paths}
for k, p in paths.items():
    get("small", *p)
for _ in range(rounds):
    for k, p in paths.items():
        lat[k] += [get("small", *p)[0] * 1e6 for _ in range(connects)]
        secs, n = get("big", *p)
        assert n > 32 * 1024 * 1024, n
        thr[k].append(n / secs / 1e6)
base_lat = statistics.median(lat["relay, passed through"])
base_thr = statistics.median(thr["relay, passed through"])
print("| path | CONNECT + handshake + GET p50 (µs) | ratio | 32 MiB GET (MB/s) | ratio |")
print("|---|---:|---:|---:|---:|")
for k in paths:
    l, t = statistics.median(lat[k]), statistics.median(thr[k])
    print(f"| {k} | {l:.0f} | {l / base_lat:.2f} | {t:.0f} | {t / base_thr:.2f} |")
PY
