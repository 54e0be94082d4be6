#!/usr/bin/env bash
# From a Hermes terminal payload to an installed package: `npm install` in a project is caged
# by the hook; the rewrite, run with bash as the agent would, installs the package from the
# npm registry through the relay. In the same caged step the relay refuses a host off its
# allowlist (curl sees the 403) and a write to $HOME fails.
# Usage: npm_install.sh TOOLCAGE_BIN. Exit 77 only when npm is absent or the registry is
# unreachable from here.
set -euo pipefail
TOOLCAGE="${1:?usage: npm_install.sh TOOLCAGE_BIN}"
source "$(dirname "$0")/lib.sh"

command -v npm >/dev/null 2>&1 || skip "npm is not installed"
command -v curl >/dev/null 2>&1 || fail "curl is needed inside the cage"
PACKAGE=is-number
VERSION=7.0.0
timeout 60 npm view "$PACKAGE@$VERSION" version >/dev/null 2>&1 \
    || skip "the npm registry is unreachable (npm view $PACKAGE failed outside the cage)"

make_work npm
WS="$WORK/project"
HOME_DIR="$WORK/home"
mkdir -p "$WS" "$HOME_DIR"
echo '{"name":"e2e-project","version":"1.0.0","private":true}' > "$WS/package.json"

# The registry's host, read now (never written into the repository). The relay dials only
# public addresses; where this machine's resolver maps the registry into a range the relay
# never dials (documentation nets, as some sandboxes do), the relay reaches it through a
# loopback forwarder in its upstream mode instead; its allowlist check is the same.
REGISTRY_HOST=$(npm config get registry | sed -E 's#^[a-z]+://([^/:]+).*#\1#')
[ -n "$REGISTRY_HOST" ] || fail "npm config get registry gave no host"
UPSTREAM=""
if getent ahosts "$REGISTRY_HOST" | awk '{print $1}' | grep -Eq '^(192\.0\.2|198\.51\.100|203\.0\.113)\.'; then
    start_node_helper forwarder "$(dirname "$0")/connect_forwarder.mjs"
    UPSTREAM="http://127.0.0.1:$HELPER_PORT"
    echo "the registry resolves to a documentation address here; the relay goes through $UPSTREAM"
fi

# The test policy: default's cage, a writable npm cache in the step's temp dir, and a relay
# that allows only the registry ({npm_registry}: the cage expands it from npm's config).
POLICY="$WORK/policy/e2e-npm.json"
mkdir -p "$(dirname "$POLICY")"
cat > "$POLICY" <<JSON
{
  "name": "e2e-npm",
  "extends": "default",
  "cage": {"env_set": {"npm_config_cache": "{tmp}/npm-cache"}},
  "relay": {"enabled": true, "allow": ["{npm_registry}"], "upstream": "$UPSTREAM"}
}
JSON

COMMAND="npm install --no-audit --no-fund $PACKAGE@$VERSION && echo INSTALL-OK; \
curl -sS -o /dev/null https://example.com; echo \"curl-exit=\$?\"; \
touch \"\$HOME/escape-marker\"; echo \"touch-exit=\$?\""
REWRITE=$(hermes_rewrite "$POLICY" "$COMMAND" "$WS")
echo "rewrite: $REWRITE"
case "$REWRITE" in
    *" run "*"--policy"*) ;;
    *) fail "the rewrite is not a toolcage run: $REWRITE" ;;
esac

RELAY_LOG="$(toolcage_state_dir)/relay.jsonl"
before=$( [ -f "$RELAY_LOG" ] && wc -l < "$RELAY_LOG" || echo 0)
run_as_agent "$WS" "$HOME_DIR" "$REWRITE"
echo "--- caged step (exit $RUN_RC) ---"
echo "$RUN_OUT"
echo "---"
[ "$RUN_RC" -eq 0 ] || fail "the caged step exited $RUN_RC"
grep -q '^INSTALL-OK$' <<<"$RUN_OUT" || fail "npm install failed inside the cage"
[ -f "$WS/node_modules/$PACKAGE/package.json" ] || fail "node_modules/$PACKAGE/package.json is missing"
got=$(node -p "require('$WS/node_modules/$PACKAGE/package.json').version")
[ "$got" = "$VERSION" ] || fail "installed $PACKAGE is $got, not $VERSION"
grep -q "\"$PACKAGE\"" "$WS/package.json" || fail "package.json does not record $PACKAGE"

grep -q 'CONNECT tunnel failed, response 403' <<<"$RUN_OUT" \
    || fail "curl to a host off the allowlist did not get the relay's 403"
grep -q '^curl-exit=56$' <<<"$RUN_OUT" || fail "curl did not fail with exit 56"
grep -q '^touch-exit=0$' <<<"$RUN_OUT" && fail "the write to \$HOME succeeded"
[ ! -e "$HOME_DIR/escape-marker" ] || fail "the cage wrote $HOME_DIR/escape-marker"

# The relay's own log (this step's lines): the registry let through, example.com refused.
# In toolcage's state directory, found from the user database (not HOME).
[ -f "$RELAY_LOG" ] || fail "the relay left no log at $RELAY_LOG"
tail -n +"$((before + 1))" "$RELAY_LOG" > "$WORK/relay.jsonl"
has_line_with "$WORK/relay.jsonl" '"host":"example.com"' '"status":403' \
    || fail "the relay log has no 403 for example.com"
has_line_with "$WORK/relay.jsonl" "\"host\":\"$REGISTRY_HOST\"" '"verdict":"allow"' \
    || fail "the relay log shows no allowed tunnel to the registry"
if [ -n "$UPSTREAM" ]; then
    grep -q example.com "$WORK/forwarder.log" && fail "example.com got past the relay to the forwarder"
fi
echo "PASS: npm install ran caged through the relay; example.com refused (403); \$HOME not writable"
