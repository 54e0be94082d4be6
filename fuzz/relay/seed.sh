#!/bin/sh
# Writes a relay target's seed corpus into $1: the CONNECT requests of corpus/ for the request
# parser, the real ClientHellos of client_hello_seeds/ (with a name, without one, split in two
# records) for the handshake check.
set -eu
out=${1:?usage: seed.sh OUTDIR TARGET}
target=${2:?usage: seed.sh OUTDIR TARGET}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
case $target in
    fuzz_relay_request) cp "$here"/corpus/* "$out"/ ;;
    fuzz_relay_client_hello) cp "$here"/client_hello_seeds/* "$out"/ ;;
    fuzz_relay_inspected_request) cp "$here"/inspected_seeds/* "$out"/ ;;
esac
