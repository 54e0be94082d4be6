#!/usr/bin/env bash
# A network that answers public names with addresses that are not public (split-horizon DNS,
# an intercepting proxy): a forge step's `npm install`, through the hook's rewrite and the
# relay, with no forwarder in between. Without `relay.allow_ranges` the relay refuses the
# registry's address and its log names the setting that would open it; with the range named
# the same install succeeds, and the relay still refuses a host off its allowlist.
# Usage: npm_allow_ranges.sh TOOLCAGE_BIN. Exit 77 when npm or the registry is absent, or when
# this machine resolves the registry to a public address (there is no such network to test).
set -euo pipefail
TOOLCAGE="${1:?usage: npm_allow_ranges.sh TOOLCAGE_BIN}"
source "$(dirname "$0")/lib.sh"

command -v npm >/dev/null 2>&1 || skip "npm is not installed"
PACKAGE=is-number
VERSION=7.0.0
timeout 60 npm view "$PACKAGE@$VERSION" version >/dev/null 2>&1 \
    || skip "the npm registry is unreachable (npm view $PACKAGE failed outside the cage)"

REGISTRY_HOST=$(npm config get registry | sed -E 's#^[a-z]+://([^/:]+).*#\1#')
[ -n "$REGISTRY_HOST" ] || fail "npm config get registry gave no host"
ADDRESS=$(getent ahostsv4 "$REGISTRY_HOST" | awk 'NR == 1 {print $1}')
[ -n "$ADDRESS" ] || skip "$REGISTRY_HOST has no IPv4 address here"
# The ranges a resolver of such a network answers with: private, shared (CGNAT), benchmarking
# and the documentation nets. A public answer leaves nothing to test.
case "$ADDRESS" in
    10.*|192.168.*|172.1[6-9].*|172.2[0-9].*|172.3[01].*|100.6[4-9].*|100.[7-9][0-9].*|100.1[01][0-9].*|100.12[0-7].*|\
    198.1[89].*|192.0.2.*|198.51.100.*|203.0.113.*) ;;
    *) skip "$REGISTRY_HOST resolves to the public address $ADDRESS here: no split-horizon network to test" ;;
esac
RANGE="${ADDRESS%.*}.0/24"
echo "$REGISTRY_HOST resolves to $ADDRESS here; the range named is $RANGE"

make_work ranges
WS="$WORK/project"
HOME_DIR="$WORK/home"
mkdir -p "$WS" "$HOME_DIR" "$WORK/policy"
echo '{"name":"e2e-ranges","version":"1.0.0","private":true}' > "$WS/package.json"

# forge as shipped, with npm's cache in the step's temp dir (so that the registry is asked,
# whatever the steps' shared cache holds) and, in the second policy, the range.
write_policy() {  # write_policy NAME RANGES_JSON
    cat > "$WORK/policy/$1.json" <<JSON
{
  "name": "$1",
  "extends": "forge",
  "cage": {"env_set": {"npm_config_cache": "{tmp}/npm-cache"}},
  "relay": {"allow_ranges": $2}
}
JSON
}
write_policy e2e-no-range '[]'
write_policy e2e-range "[\"$RANGE\"]"

RELAY_LOG="$(toolcage_state_dir)/relay.jsonl"
log_lines() { [ -f "$RELAY_LOG" ] && wc -l < "$RELAY_LOG" || echo 0; }

COMMAND="npm install --no-audit --no-fund --fetch-retries=0 $PACKAGE@$VERSION && echo INSTALL-OK; \
curl -sS -o /dev/null https://example.com; echo \"curl-exit=\$?\""

# 1. No range: the registry's address is refused, and the log says what would open it.
before=$(log_lines)
REWRITE=$(hermes_rewrite "$WORK/policy/e2e-no-range.json" "$COMMAND" "$WS")
run_as_agent "$WS" "$HOME_DIR" "$REWRITE"
echo "--- without the range (exit $RUN_RC) ---"; echo "$RUN_OUT" | tail -15; echo "---"
grep -q '^INSTALL-OK$' <<<"$RUN_OUT" && fail "npm install succeeded although the relay may not dial $ADDRESS"
[ ! -e "$WS/node_modules/$PACKAGE" ] || fail "node_modules/$PACKAGE exists without the range"
tail -n +"$((before + 1))" "$RELAY_LOG" > "$WORK/relay-1.jsonl"
has_line_with "$WORK/relay-1.jsonl" "\"host\":\"$REGISTRY_HOST\"" '"verdict":"deny"' 'relay.allow_ranges' \
    || fail "the relay's log has no refusal of $REGISTRY_HOST naming relay.allow_ranges"

# 2. The range named: the same install succeeds; example.com is still refused.
before=$(log_lines)
REWRITE=$(hermes_rewrite "$WORK/policy/e2e-range.json" "$COMMAND" "$WS")
run_as_agent "$WS" "$HOME_DIR" "$REWRITE"
echo "--- with $RANGE (exit $RUN_RC) ---"; echo "$RUN_OUT" | tail -15; echo "---"
[ "$RUN_RC" -eq 0 ] || fail "the caged step exited $RUN_RC"
grep -q '^INSTALL-OK$' <<<"$RUN_OUT" || fail "npm install failed inside the cage with $RANGE allowed"
got=$(node -p "require('$WS/node_modules/$PACKAGE/package.json').version")
[ "$got" = "$VERSION" ] || fail "installed $PACKAGE is $got, not $VERSION"
grep -q '^curl-exit=56$' <<<"$RUN_OUT" || fail "curl to example.com was not refused (exit 56)"
tail -n +"$((before + 1))" "$RELAY_LOG" > "$WORK/relay-2.jsonl"
has_line_with "$WORK/relay-2.jsonl" "\"host\":\"$REGISTRY_HOST\"" '"verdict":"allow"' \
    || fail "the relay's log shows no allowed tunnel to $REGISTRY_HOST"
has_line_with "$WORK/relay-2.jsonl" '"host":"example.com"' '"status":403' || fail "no 403 for example.com"
echo "PASS: with $RANGE in relay.allow_ranges, npm install reached $REGISTRY_HOST ($ADDRESS) directly; without it the relay refused and named the setting"
