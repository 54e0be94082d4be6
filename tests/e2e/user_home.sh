#!/usr/bin/env bash
# A working session on a home set up as developers' homes are (HOME under /tmp, as CI runners
# have it): ~/.gitconfig with an identity, an alias, credential helpers, a tokened
# url.insteadOf and an include; ~/.git-credentials; ~/.npmrc with an _authToken and a
# registry; pip, pypi and cargo credentials; an ssh key; secrets in the agent's environment;
# the agent's own venv first on PATH. Through `toolcage hook --agent claude` with the forge
# policy, each command's rewrite is run as Claude Code would run it: clone, branch, npm install
# (a local tarball, and the registry through the relay when it is reachable), make test,
# commit. The commit carries the user's identity, python3 is the system's, and no token, key
# or secret appears in any step's output, though one step prints its whole environment, git's
# global and system config, npm's and pip's, and every file of the home it can read.
# Usage: user_home.sh TOOLCAGE_BIN
set -euo pipefail
TOOLCAGE="${1:?usage: user_home.sh TOOLCAGE_BIN}"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
for tool in git make cc node npm python3; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed for this test"
done
# toolcage takes the user's home from the user database, never from HOME (the agent's shell sets
# HOME): the scratch home stands for the user's only as a user's passwd home. Run as root, this
# makes a throwaway user whose home it is, copies the built programs and these scripts where
# that user can reach them (the checkout may sit in a home only its owner enters, as /root is),
# and runs the session again as that user.
if [ -z "${TOOLCAGE_E2E_HOME:-}" ]; then
    [ "$(id -u)" = 0 ] || skip "run as root: the session needs a throwaway user whose passwd home is the scratch home"
    command -v useradd >/dev/null 2>&1 || skip "useradd is missing"
    BUILT=$(cd "$(dirname "$TOOLCAGE")" && pwd)
    PREFIX=$(mktemp -d /tmp/toolcage-e2e-prefix-XXXXXX)
    HOME_DIR=$(mktemp -d /tmp/toolcage-e2e-home-XXXXXX)
    NAME="tce2e$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
    trap 'userdel "$NAME" >/dev/null 2>&1; rm -rf "$PREFIX" "$HOME_DIR"' EXIT
    cp "$BUILT/toolcage" "$PREFIX/"
    [ -x "$BUILT/toolcage-relay" ] && cp "$BUILT/toolcage-relay" "$PREFIX/"
    mkdir -p "$PREFIX/share" "$PREFIX/e2e"
    cp -r "$BUILT/share/toolcage" "$PREFIX/share/"
    cp "$HERE"/*.sh "$HERE"/*.mjs "$PREFIX/e2e/"
    chmod -R a+rX "$PREFIX"
    chmod 755 "$PREFIX"
    useradd -M -d "$HOME_DIR" -s /bin/bash "$NAME" || skip "useradd $NAME failed"
    chown "$NAME:" "$HOME_DIR"
    chmod 700 "$HOME_DIR"
    set +e
    runuser -u "$NAME" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME_DIR" LANG=C.UTF-8 \
        TOOLCAGE_E2E_HOME="$HOME_DIR" TOOLCAGE_TEST_DIR=/tmp bash "$PREFIX/e2e/user_home.sh" "$PREFIX/toolcage"
    rc=$?
    set -e
    exit "$rc"
fi

make_work userhome
HOME_DIR="$TOOLCAGE_E2E_HOME"
[ "$(getent passwd "$(id -u)" | cut -d: -f6)" = "$HOME_DIR" ] || fail "$HOME_DIR is not this user's passwd home"
WS="$WORK/ws"
SRC="$WORK/src"
VENV="$WORK/agent-venv"
mkdir -p "$WS" "$SRC" "$VENV/bin"

# Every secret carries this mark: none may appear in any step's output.
MARK=E2ESECRET
H="$HOME_DIR"
# npm's cache and the XDG cache exist in a home where npm and pip have run before.
mkdir -p "$H/.ssh" "$H/.config/pip" "$H/.cargo" "$H/.config/git" "$H/.npm" "$H/.cache"
cat > "$H/.gitconfig" <<GIT
[user]
	name = Erin Example
	email = erin@example.org
[init]
	defaultBranch = trunk
[alias]
	st = status --short
	last = log -1 --format=%an
[core]
	autocrlf = input
	sshCommand = ssh -i ~/.ssh/id_ed25519 -o ${MARK}sshcmd
[credential]
	helper = store
	helper = "!f() { echo password=${MARK}helper0002; }; f"
[credential "https://github.com"]
	username = erin
[url "https://x-access-token:${MARK}url0001@github.com/"]
	insteadOf = https://github.com/
[http "https://github.com/"]
	extraHeader = Authorization: Bearer ${MARK}header0003
[include]
	path = ~/.gitconfig-private
[pull]
	rebase = true
GIT
printf '[user]\n\tsigningkey = %sinclude0004\n[commit]\n\tgpgsign = true\n' "$MARK" > "$H/.gitconfig-private"
printf '[alias]\n\tco = checkout\n' > "$H/.config/git/config"
echo "https://erin:${MARK}creds0005@github.com" > "$H/.git-credentials"
cat > "$H/.npmrc" <<NPM
//registry.npmjs.org/:_authToken=npm_${MARK}npm0006
_auth=${MARK}npmauth0007
email=erin@example.org
fund=false
@erin:registry=https://npm.example.org/
//npm.example.org/:_password=${MARK}npmpass0008
NPM
printf '[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\npassword = pypi-%spypirc0009\n' "$MARK" > "$H/.pypirc"
printf '[global]\nindex-url = https://erin:%spip0010@pypi.example.org/simple\ntimeout = 30\n' "$MARK" > "$H/.config/pip/pip.conf"
printf '[registry]\ntoken = "%scargo0011"\n' "$MARK" > "$H/.cargo/credentials.toml"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%ssshkey0012\n-----END OPENSSH PRIVATE KEY-----\n' "$MARK" > "$H/.ssh/id_ed25519"
chmod 600 "$H/.ssh/id_ed25519" "$H/.git-credentials" "$H/.npmrc"
printf 'machine github.com login erin password %snetrc0013\n' "$MARK" > "$H/.netrc"

# The agent's own venv, first on its PATH: its python3 must not be the worker's.
printf '#!/bin/sh\necho AGENT-VENV-PYTHON\n' > "$VENV/bin/python3"
chmod 755 "$VENV/bin/python3"

# A project with a Makefile, its tests and a package.json, in a bare repository in the
# workspace, with a vendored npm package as a tarball.
cat > "$SRC/Makefile" <<'MK'
test:
	@sh ./test.sh
.PHONY: test
MK
printf '#!/bin/sh\n[ "$(node -p "require(\\"e2e-leftpad\\")(\\"7\\", 3)")" = "007" ] && echo "tests passed"\n' > "$SRC/test.sh"
echo '{"name":"e2e-project","version":"1.0.0","private":true}' > "$SRC/package.json"
printf 'node_modules/\n' > "$SRC/.gitignore"
PKG="$WORK/pkg"
mkdir -p "$PKG" "$SRC/vendor"
echo '{"name":"e2e-leftpad","version":"1.0.0","main":"index.js"}' > "$PKG/package.json"
echo 'module.exports = (s, n) => String(s).padStart(n, "0");' > "$PKG/index.js"
(cd "$PKG" && HOME="$WORK" npm pack --silent --pack-destination "$SRC/vendor" >/dev/null)
[ -f "$SRC/vendor/e2e-leftpad-1.0.0.tgz" ] || fail "npm pack made no tarball"
# The upstream's git, not the user's (whose config signs every commit).
upstream_git() { GIT_CONFIG_GLOBAL=/dev/null git -c user.name=upstream -c user.email=up@example.org "$@"; }
upstream_git -C "$SRC" init -q
upstream_git -C "$SRC" add .
upstream_git -C "$SRC" commit -qm "project"
upstream_git clone -q --bare "$SRC" "$WS/origin.git"

# The registry through the relay, when this machine reaches it (as npm_install.sh does).
REGISTRY_OK=0
UPSTREAM=""
if timeout 60 env HOME="$WORK" npm view is-number@7.0.0 version >/dev/null 2>&1; then
    REGISTRY_OK=1
    REGISTRY_HOST=$(HOME="$WORK" npm config get registry | sed -E 's#^[a-z]+://([^/:]+).*#\1#')
    if getent ahosts "$REGISTRY_HOST" | awk '{print $1}' | grep -Eq '^(192\.0\.2|198\.51\.100|203\.0\.113)\.'; then
        start_node_helper forwarder "$HERE/connect_forwarder.mjs"
        UPSTREAM="http://127.0.0.1:$HELPER_PORT"
    fi
fi
# forge, as shipped (with the relay's upstream only where the resolver needs it).
POLICY="$WORK/policy/e2e-forge.json"
mkdir -p "$(dirname "$POLICY")"
echo "{\"name\": \"e2e-forge\", \"extends\": \"forge\", \"relay\": {\"upstream\": \"$UPSTREAM\"}}" > "$POLICY"

ALL_OUT="$WORK/all-steps.out"
: > "$ALL_OUT"
# step CWD COMMAND: Claude Code's payload -> hook -> rewrite -> bash, with the agent's
# environment (its venv first on PATH, secrets in its variables).
step() {
    local wd="$1" command="$2" rewrite
    rewrite=$(HOME="$H" TOOLCAGE_LOG="$WORK/decisions.jsonl" claude_rewrite "$POLICY" "$command" "$wd")
    case "$rewrite" in
        *" run "*"--policy"*) ;;
        *) fail "the rewrite of \"$command\" is not a toolcage run: $rewrite" ;;
    esac
    set +e
    RUN_OUT=$(cd "$wd" && env -i PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" HOME="$H" \
        LANG=C.UTF-8 USER=erin VIRTUAL_ENV="$VENV" TOOLCAGE_LOG="$WORK/decisions.jsonl" \
        ANTHROPIC_API_KEY="sk-ant-${MARK}env0014" GITHUB_TOKEN="ghp_${MARK}env0015" \
        NPM_TOKEN="npm_${MARK}env0016" AWS_SECRET_ACCESS_KEY="${MARK}env0017" \
        GIT_ASKPASS=/bin/false bash -c "$rewrite" 2>&1)
    RUN_RC=$?
    set -e
    echo "--- $command (exit $RUN_RC) ---"
    echo "$RUN_OUT"
    printf '%s\n' "$RUN_OUT" >> "$ALL_OUT"
}

step "$WS" "git clone origin.git project"
[ "$RUN_RC" -eq 0 ] || fail "the caged git clone exited $RUN_RC"
P="$WS/project"
[ -f "$P/Makefile" ] || fail "the clone has no Makefile"

step "$P" "git checkout -b feature/e2e"
[ "$RUN_RC" -eq 0 ] || fail "the caged git checkout -b exited $RUN_RC"
[ "$(git -C "$P" rev-parse --abbrev-ref HEAD)" = feature/e2e ] || fail "the branch was not made"

step "$P" "npm install --no-audit --no-fund ./vendor/e2e-leftpad-1.0.0.tgz"
[ "$RUN_RC" -eq 0 ] || fail "the caged npm install of a local tarball exited $RUN_RC"
[ -f "$P/node_modules/e2e-leftpad/index.js" ] || fail "npm did not install the local package"

if [ "$REGISTRY_OK" = 1 ]; then
    step "$P" "npm install --no-audit --no-fund is-number@7.0.0"
    [ "$RUN_RC" -eq 0 ] || fail "the caged npm install from the registry exited $RUN_RC"
    [ -f "$P/node_modules/is-number/package.json" ] || fail "is-number was not installed"
else
    echo "note: the npm registry is unreachable from here; npm install from it not tried"
fi

step "$P" "make test"
[ "$RUN_RC" -eq 0 ] || fail "the caged make test exited $RUN_RC"
grep -q '^tests passed$' <<<"$RUN_OUT" || fail "make test did not pass"

echo "change" > "$P/CHANGES"
step "$P" "git add -A && git commit -qm 'e2e: a change' && git st && git last"
[ "$RUN_RC" -eq 0 ] || fail "the caged git commit exited $RUN_RC"
who=$(git -C "$P" log -1 --format='%an <%ae>|%cn <%ce>')
[ "$who" = "Erin Example <erin@example.org>|Erin Example <erin@example.org>" ] \
    || fail "the commit does not carry the user's identity: $who"
grep -q '^Erin Example$' <<<"$RUN_OUT" || fail "the user's alias (git last) did not run"

# Everything a worker could look at, from a script of the workspace's (as a stranger's
# repository would have it).
cat > "$P/probe.sh" <<'SH'
echo "python3=$(command -v python3)"
python3 -c 'import sys; print("sys.executable=" + sys.executable)'
echo "== env"; env
echo "== git global"; git config --global --list --show-origin
echo "== git system"; git config --system --list --show-origin
echo "== git all"; git config --list
echo "== npm"; npm config list 2>&1; cat "$NPM_CONFIG_USERCONFIG"
echo "== pip"; cat "$PIP_CONFIG_FILE"
echo "== home files"
for f in .gitconfig .gitconfig-private .config/git/config .git-credentials .npmrc .pypirc \
         .config/pip/pip.conf .cargo/credentials.toml .ssh/id_ed25519 .netrc; do
    cat "$HOME/$f" 2>&1 | sed "s#^#$f: #"
done
find "$HOME" -type f 2>/dev/null | while read -r f; do cat "$f" 2>/dev/null; done
ls -la "$HOME" 2>&1
echo "== credential fill"
printf 'protocol=https\nhost=github.com\n\n' | GIT_TERMINAL_PROMPT=0 git credential fill 2>&1
echo "== done"
SH
step "$P" "sh ./probe.sh"
grep -q '^== done$' <<<"$RUN_OUT" || fail "the probe did not run to its end"
grep -qx 'python3=/usr/bin/python3' <<<"$RUN_OUT" || fail "python3 in the cage is not /usr/bin/python3"
grep -qx 'sys.executable=/usr/bin/python3' <<<"$RUN_OUT" || fail "the cage's python3 is not the system's"
grep -q AGENT-VENV-PYTHON <<<"$RUN_OUT" && fail "the agent's venv python3 ran in the cage"
grep -q 'user.name=Erin Example' <<<"$RUN_OUT" || fail "git's global config lost the identity"
grep -q 'alias.st=status --short' <<<"$RUN_OUT" || fail "git's global config lost the alias"
grep -q 'alias.co=checkout' <<<"$RUN_OUT" || fail "git's XDG config was not read"
grep -q 'fund = false' <<<"$RUN_OUT" || fail "npm lost the user's fund=false"
grep -q '@erin:registry = "https://npm.example.org/"' <<<"$RUN_OUT" || fail "npm lost the scope's registry"
grep -q 'timeout = 30' <<<"$RUN_OUT" || fail "pip lost the user's timeout"
gitconf=$(echo "$RUN_OUT" | sed -n '/^== git global$/,/^== npm$/p')
for key in credential. insteadof extraheader include.path includeif sshcommand signingkey gpgsign; do
    grep -iq -- <<<"$gitconf" "$key" && fail "git's config in the cage holds $key"
done
grep -q '^password=' <<<"$RUN_OUT" && fail "git credential fill found a password"
if grep -n "$MARK" "$ALL_OUT"; then
    fail "a secret reached a caged step's output (lines above)"
fi
# Nothing of the steps was written into the home but npm's cache.
extra=$(cd "$H" && find . -newer "$H/.netrc" -type f | grep -v '^\./\.npm/' | grep -v '^\./\.cache/' | grep -v '^\./\.local/state/toolcage/' || true)
[ -z "$extra" ] || fail "the steps wrote into the home: $extra"
echo "PASS: a user's home with tokens: clone, branch, npm install, make test and commit ran caged with the user's identity and no secret"
