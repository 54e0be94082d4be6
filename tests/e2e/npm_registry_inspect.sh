#!/usr/bin/env bash
# npm through an inspected host, for real on loopback, as root and as nobody: a verdaccio
# registry behind TLS (a test CA the relay trusts through relay.upstream_ca) that wants a token
# for every read and publish. In caged steps whose .npmrc and environment hold only the
# relay's placeholder: `npm install` of a package published there works, `npm publish` of the
# package the policy names works (the relay adds the token), a publish of another name is
# refused by the request rule "publish only the named package" with a 403 naming its field,
# and curl sending the placeholder to a host that is inspected but not bound gets a 403 the
# relay logs without the secret. The step's environment, /proc and files never hold the secret.
# Usage: npm_registry_inspect.sh TOOLCAGE_BIN. Exit 77 only when npm is absent or the registry
# that serves verdaccio cannot be reached.
set -euo pipefail
TOOLCAGE_BUILT="${1:?usage: npm_registry_inspect.sh TOOLCAGE_BIN}"
source "$(dirname "$0")/lib.sh"

command -v npm >/dev/null 2>&1 || skip "npm is not installed"
for tool in node curl openssl python3; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed"
done

make_work npm-registry
chmod 755 "$WORK"

# verdaccio 6.1 (the last line that runs on Node.js 18, Debian 12's), once per build tree.
VERDACCIO_VERSION=6.1.6
VERDACCIO_DIR="${TOOLCAGE_NPM_CACHE_DIR:-$WORK/npm}-verdaccio-$VERDACCIO_VERSION"
npm_package "$VERDACCIO_DIR" "verdaccio@$VERDACCIO_VERSION" node_modules/.bin/verdaccio

# toolcage, its relay and its policies where nobody can reach them (the build tree may be in
# /root), laid out as installed.
mkdir -p "$WORK/bin/share"
cp "$TOOLCAGE_BUILT" "$(dirname "$TOOLCAGE_BUILT")/toolcage-relay" "$WORK/bin/"
cp -r "$(dirname "$TOOLCAGE_BUILT")/share/toolcage" "$WORK/bin/share/"
chmod -R a+rX "$WORK/bin"
TOOLCAGE="$WORK/bin/toolcage"

# A test CA and a certificate for localhost and 127.0.0.1 it signs.
CERTS="$WORK/certs"
mkdir -p "$CERTS"
(
    cd "$CERTS"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
        -days 1 -subj /CN=npm-registry-test-ca -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr \
        -subj /CN=localhost
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > ext.cnf
    openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 1 \
        -extfile ext.cnf
) >"$WORK/openssl.log" 2>&1 || fail "openssl: $(cat "$WORK/openssl.log")"
chmod -R a+rX "$CERTS"

# verdaccio on a free loopback port, its config, storage and home in the work directory; no
# uplink (nothing goes to the public registry); reads and publishes need a user's token.
REGISTRY="$WORK/registry"
mkdir -p "$REGISTRY/home"
CURL=(curl -sS --max-time 10 --noproxy '*' --cacert "$CERTS/ca.pem")
# start_verdaccio: on a port free a moment ago; false when it does not answer (another program
# may have taken the port in between).
start_verdaccio() {
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    REG="localhost:$PORT"
    cat > "$REGISTRY/config.yaml" <<YAML
storage: $REGISTRY/storage
auth:
  htpasswd:
    file: $REGISTRY/htpasswd
    max_users: 1
uplinks: {}
packages:
  '@*/*':
    access: \$authenticated
    publish: \$authenticated
  '**':
    access: \$authenticated
    publish: \$authenticated
listen: https://127.0.0.1:$PORT
https:
  key: $CERTS/srv.key
  cert: $CERTS/srv.pem
log: {type: stdout, format: pretty, level: warn}
YAML
    (cd "$REGISTRY" && exec env HOME="$REGISTRY/home" XDG_CONFIG_HOME="$REGISTRY/home" \
        XDG_DATA_HOME="$REGISTRY/home" "$VERDACCIO_DIR/node_modules/.bin/verdaccio" \
        --config "$REGISTRY/config.yaml" >"$REGISTRY/verdaccio.log" 2>&1) &
    local pid=$!
    BACKGROUND+=($pid)
    for _ in $(seq 1 300); do
        "${CURL[@]}" -o /dev/null "https://$REG/-/ping" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    "${CURL[@]}" -o /dev/null "https://$REG/-/ping" 2>/dev/null || { kill "$pid" 2>/dev/null; return 1; }
}
started=0
for _ in 1 2 3; do
    if start_verdaccio; then started=1; break; fi
done
[ "$started" = 1 ] || fail "verdaccio did not start: $(cat "$REGISTRY/verdaccio.log")"

# Another TLS server that wants a token of its own (the inspection tests' git server, serving no
# repository): inspected, allowed, bound to no credential.
mkdir -p "$WORK/other-root"
python3 "$(dirname "$0")/../relay/servers/git_https_server.py" "$CERTS/srv.pem" "$CERTS/srv.key" \
    "$WORK/other-root" other-servers-token "$WORK/other.port" &
BACKGROUND+=($!)
for _ in $(seq 1 100); do [ -s "$WORK/other.port" ] && break; sleep 0.1; done
[ -s "$WORK/other.port" ] || fail "the other TLS server did not start"
OTHER="localhost:$(cat "$WORK/other.port")"

# The user and its token, made with the registry's own API outside every cage. The token is the
# secret, kept where no step is granted; the registry checks it.
SECRET=$("${CURL[@]}" -X PUT -H 'content-type: application/json' \
    -d '{"name":"tester","password":"tester-password-91c2"}' \
    "https://$REG/-/user/org.couchdb.user:tester" | node -e \
    'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => console.log(JSON.parse(s).token || ""))')
[ -n "$SECRET" ] || fail "verdaccio gave no token"
mkdir -p "$WORK/secret"
printf '%s\n' "$SECRET" > "$WORK/secret/npm-token"
chmod -R a+rX "$WORK/secret"

# A scoped package published there outside the cage, for the steps to install.
publish_outside() {
    local dir="$1"
    printf 'registry=https://%s/\n//%s/:_authToken=%s\ncafile=%s\n' "$REG" "$REG" "$SECRET" "$CERTS/ca.pem" \
        > "$WORK/publisher.npmrc"
    (cd "$dir" && env -i PATH="$PATH" HOME="$WORK/publisher-home" timeout 120 npm publish \
        --userconfig "$WORK/publisher.npmrc" --cache "$WORK/publisher-cache" --no-update-notifier \
        --noproxy '*' --loglevel=error) >"$WORK/publish.log" 2>&1 || fail "npm publish of $dir outside: $(cat "$WORK/publish.log")"
    rm -f "$WORK/publisher.npmrc"
}
mkdir -p "$WORK/dep" "$WORK/publisher-home"
echo '{"name":"@toolcage-e2e/dep","version":"1.0.0","main":"index.js"}' > "$WORK/dep/package.json"
echo 'module.exports = "dep-from-the-local-registry";' > "$WORK/dep/index.js"
publish_outside "$WORK/dep"
DEP_URL="https://$REG/@toolcage-e2e%2fdep"
read_with() { "${CURL[@]}" -o /dev/null -w '%{http_code}' ${1:+-H "Authorization: Bearer $1"} "$DEP_URL"; }
[ "$(read_with "$SECRET")" = 200 ] || fail "the registry refused its own token"
for bad in not-the-token ""; do
    got=$(read_with "$bad")
    [ "$got" = 401 ] || [ "$got" = 403 ] || fail "the registry let a read through without the token ($got)"
done

# The policy: both names of the registry inspected, the token bound to one, and publishing only
# @toolcage-e2e/pkg (npm sends PUT /@toolcage-e2e%2fpkg; the relay reads %2F as '/').
POLICY="$WORK/policy.json"
cat > "$POLICY" <<JSON
{
  "name": "e2e-npm-registry",
  "extends": "default",
  "cage": {"env_set": {"npm_config_cache": "{tmp}/npm-cache", "npm_config_update_notifier": "false"}},
  "relay": {
    "enabled": true, "allow_private": true,
    "allow": ["$REG", "$OTHER"], "inspect": ["$REG", "$OTHER"],
    "upstream_ca": "$CERTS/ca.pem",
    "credentials": [{"host": "$REG", "secret_file": "$WORK/secret/npm-token", "as": "bearer",
                     "placeholder_env": "NPM_TOKEN"}],
    "requests": {"$REG": {"allow": [{"method": "GET", "path": "*"},
                                    {"method": "PUT", "path": "/@toolcage-e2e/pkg"}]}}
  }
}
JSON
chmod 644 "$POLICY"

# caged WHO WS STEP_HOME STATE SCRIPT: `toolcage run` of sh -c SCRIPT in WS, as WHO; output in
# OUT, exit status in RC. NO_PROXY names localhost: unset, so npm and curl use the relay.
caged() {
    local who="$1" ws="$2" home="$3" state="$4" script="$5" prefix=()
    [ "$who" = nobody ] && prefix=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
    set +e
    OUT=$(cd "$ws" && "${prefix[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
        TOOLCAGE_STATE_DIR="$state" timeout 300 "$TOOLCAGE" run --policy "$POLICY" -- /bin/sh -c \
        "unset NO_PROXY no_proxy; $script" 2>&1)
    RC=$?
    set -e
}

no_secret_in() {  # no_secret_in WHAT TEXT
    case "$2" in *"$SECRET"*) fail "$1 holds the secret" ;; esac
}

run_as() {
    local who="$1" version="$2" ws="$WORK/ws-$1" home="$WORK/home-$1" state="$WORK/state-$1"
    echo "=== as $who"
    mkdir -p "$ws/other" "$home"
    # toolcage's state (its relay's CA and log, the decision log) in a test state directory of
    # the case's user (common/user_home.cpp): 0700, with its marker; never the user's own.
    mkdir -m 700 "$state"
    install -m 600 /dev/null "$state/.toolcage-test-state"
    echo '{"name":"@toolcage-e2e/pkg","version":"'"$version"'","main":"index.js"}' > "$ws/package.json"
    echo 'module.exports = 1;' > "$ws/index.js"
    echo '{"name":"@toolcage-e2e/other","version":"1.0.0"}' > "$ws/other/package.json"
    # The project's .npmrc names the registry and the token by its variable (the placeholder).
    printf 'registry=https://%s/\n//%s/:_authToken=${NPM_TOKEN}\n' "$REG" "$REG" > "$ws/.npmrc"
    cp "$ws/.npmrc" "$ws/other/.npmrc"
    [ "$who" = nobody ] && chown -R 65534:65534 "$ws" "$home" "$state"

    # Install: every read of the registry needs the token, which only the relay adds.
    caged "$who" "$ws" "$home" "$state" \
        'npm install --no-audit --no-fund @toolcage-e2e/dep && node -p "require(\"@toolcage-e2e/dep\")" &&
         echo "token=$NPM_TOKEN" && cat /proc/self/environ | tr "\0" "\n" | grep "^NPM_TOKEN=" &&
         sed "s/^/npmrc: /" .npmrc &&
         echo "cafile=$NPM_CONFIG_CAFILE" &&
         for p in /proc/[0-9]*; do cat "$p/environ" "$p/cmdline" 2>/dev/null | tr "\0" "\n"; done; true'
    echo "$OUT"
    [ "$RC" -eq 0 ] || fail "as $who: the caged npm install exited $RC"
    grep -q '^dep-from-the-local-registry$' <<<"$OUT" || fail "as $who: the installed package did not load"
    grep -q '^token=toolcage-placeholder-' <<<"$OUT" || fail "as $who: \$NPM_TOKEN is not the placeholder"
    grep -q '^NPM_TOKEN=toolcage-placeholder-' <<<"$OUT" || fail "as $who: /proc/self/environ has no placeholder"
    grep -qF "npmrc: //$REG/:_authToken=\${NPM_TOKEN}" <<<"$OUT" || fail "as $who: the step's .npmrc is not the one written"
    grep -q '^cafile=.*toolcage-ca-bundle.pem$' <<<"$OUT" || fail "as $who: NPM_CONFIG_CAFILE is not the bundle"
    no_secret_in "as $who: the install step's environment, /proc or output" "$OUT"

    # Publish of the named package: npm sends the placeholder (it publishes nothing without a
    # token of its own), the relay puts the secret in its place, the registry stores the package.
    caged "$who" "$ws" "$home" "$state" 'npm publish --loglevel=error && echo PUBLISH-OK'
    echo "$OUT"
    [ "$RC" -eq 0 ] && grep -q '^PUBLISH-OK$' <<<"$OUT" || fail "as $who: npm publish of the named package failed"
    no_secret_in "as $who: the publish step's output" "$OUT"
    [ -f "$REGISTRY/storage/@toolcage-e2e/pkg/pkg-$version.tgz" ] || fail "as $who: the registry did not store pkg $version"

    # Publish of another name: refused by the relay's rule, the 403 naming the policy's field.
    caged "$who" "$ws/other" "$home" "$state" 'npm publish --loglevel=error; echo "publish-exit=$?"'
    echo "$OUT"
    grep -q '^publish-exit=0$' <<<"$OUT" && fail "as $who: a publish of another package went through"
    grep -q '403' <<<"$OUT" || fail "as $who: npm did not see the relay's 403"
    has_line_with <(printf '%s\n' "$OUT") "relay.requests[\"$REG\"].allow" \
        || fail "as $who: the refusal does not name relay.requests[\"$REG\"].allow"
    no_secret_in "as $who: the refused publish's output" "$OUT"
    [ ! -e "$REGISTRY/storage/@toolcage-e2e/other" ] || fail "as $who: the registry stored the refused package"

    # The placeholder sent to a host that is inspected but not bound: refused by the relay,
    # naming the variable; without it, the server answers (its own 401).
    caged "$who" "$ws" "$home" "$state" \
        'curl -sS --max-time 10 -H "Authorization: Bearer $NPM_TOKEN" -w "status=%{http_code}\n" https://'"$OTHER"'/repo.git/info/refs;
         curl -sS --max-time 10 -o /dev/null -w "plain=%{http_code}\n" https://'"$OTHER"'/repo.git/info/refs'
    echo "$OUT"
    grep -q '^status=403$' <<<"$OUT" || fail "as $who: the placeholder to $OTHER was not refused"
    grep -q 'placeholder of \$NPM_TOKEN' <<<"$OUT" || fail "as $who: the refusal does not name \$NPM_TOKEN"
    grep -q '^plain=401$' <<<"$OUT" || fail "as $who: curl without the placeholder did not reach $OTHER"
    no_secret_in "as $who: the curl step's output" "$OUT"

    # The relay's log names the refusals and never holds the secret; nor do the step's files.
    local log="$state/relay.jsonl"
    [ -f "$log" ] || fail "as $who: no relay log at $log"
    has_line_with "$log" '"deny"' "$OTHER" || fail "as $who: the relay did not log the refusal at $OTHER"
    has_line_with "$log" '"deny"' '@toolcage-e2e' || fail "as $who: the relay did not log the refused publish"
    ! grep -rqF -- "$SECRET" "$state" "$ws" "$home" || fail "as $who: the secret is in a file of the step or the relay's log"
}

# Each case publishes its own version of the named package.
run_as root 1.0.0
if [ "$(id -u)" = 0 ]; then
    run_as nobody 1.0.1
else
    echo "not root: the one case above ran as $(id -un), an ordinary user"
fi
echo PASS
