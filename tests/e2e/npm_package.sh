# npm_package CACHE SPEC BIN: the npm package SPEC (name@range) installed once into CACHE; done
# when CACHE/BIN is executable. Skips (77) when the registry cannot be reached. `npm install
# --prefix` takes its global configuration from under the prefix, not the system's: the system's
# npmrc (a company proxy's `cafile`, a registry mirror) is named explicitly, and the user's
# ~/.npmrc is read as npm reads it. Its download cache (the registry's answers too) goes with
# CACHE, not into the user's ~/.npm, and so do its logs.
# Every wait is bounded. The caller's environment reaches the package's install scripts (a PATH
# with the node they need, NODE_COMPILE_CACHE, TMPDIR).
# Sourced by a script that defines fail and skip (exit 77) and a work directory WORK.
npm_package() {
    local cache="$1" package="$2" bin="$1/$3" global=() rc system_rc
    [ -x "$bin" ] && return 0
    mkdir -p "$cache"
    system_rc=$(timeout 30 npm --cache "$cache/.npm-cache" config get globalconfig 2>/dev/null || true)
    [ -f "$system_rc" ] || system_rc=/etc/npmrc
    [ -f "$system_rc" ] && global=(--globalconfig "$system_rc")
    echo "npm: ${global[*]:-no system npmrc}"
    set +e
    timeout 60 npm "${global[@]}" --cache "$cache/.npm-cache" view "$package" version >/dev/null 2>"$WORK/npm-view.err"
    rc=$?
    set -e
    if [ $rc -ne 0 ]; then
        echo "npm view $package: $(tail -c 600 "$WORK/npm-view.err" 2>/dev/null)"
        rm -f "$WORK/npm-view.err"
        [ $rc -eq 124 ] && skip "the npm registry did not answer in 60 s; cannot fetch $package"
        skip "the npm registry is unreachable (npm view failed, exit $rc); cannot fetch $package"
    fi
    rm -f "$WORK/npm-view.err"
    set +e
    timeout 300 npm install "${global[@]}" --prefix "$cache" --cache "$cache/.npm-cache" --no-audit --no-fund \
        --loglevel=error "$package" >&2
    rc=$?
    set -e
    [ $rc -ne 124 ] || fail "npm install $package did not finish in 300 s"
    [ $rc -eq 0 ] || fail "npm install $package failed (exit $rc; npm ${global[*]:-without a system npmrc})"
    [ -x "$bin" ] || fail "npm install $package left no $bin"
}
