# What the relay benchmarks share (sourced, never run): a work directory removed on exit with
# every process started into PIDS, free loopback ports, waiting for a listener or a relay's
# ready file, the relay's token and a throw-away TLS server certificate.
#
#   . "$(dirname "$0")/relay_lib.sh"; bench_work NAME   (sets WORK, PIDS, the EXIT trap)

bench_work() {  # name: WORK=/tmp/toolcage-NAME-bench.XXXXXX
  WORK=$(mktemp -d "/tmp/toolcage-$1-bench.XXXXXX")
  PIDS=()
  trap bench_cleanup EXIT
}

bench_cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_listening() {  # port: returns 1 after some 10 s with nothing listening
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2; return 1
}

wait_ready() {  # file a relay writes its port to (--ready-fd): prints the port
  for _ in $(seq 1 200); do [[ -s $1 ]] && break; sleep 0.02; done
  head -1 "$1"
}

make_token() {  # the relay's token in WORK/token
  head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/token"
}

# An ECDSA certificate for localhost (WORK/cert.pem, WORK/key.pem) keeps the server's own
# handshake cost small beside what is measured.
make_tls_cert() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/key.pem" \
    -out "$WORK/cert.pem" -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost 2>/dev/null
}
