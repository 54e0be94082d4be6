# The fixtures of a worker's day in a work root (claude_work_root.sh, openclaw_work_root.sh): a
# home that looks like a user's, a stranger's repository to clone, and the policy.
# Sourced by a script that defines fail and a work directory WORK.

# worker_home HOME_DIR: a git identity with a token in url.insteadOf, an npm token, an ssh key,
# and ~/notes with a script that writes beside itself.
worker_home() {
    local home="$1"
    mkdir -p "$home/notes" "$home/.ssh"
    echo 'echo remember > note.txt' >"$home/notes/remember.sh"
    chmod 700 "$home/.ssh"
    cat >"$home/.gitconfig" <<'GITCONFIG'
[user]
	name = Day Worker
	email = worker@example.com
[url "https://x-access-token:ghp_SECRETTOKEN0123456789@github.com/"]
	insteadOf = https://github.com/
[alias]
	st = status
GITCONFIG
    echo "//registry.npmjs.org/:_authToken=npm_SECRETNPMTOKEN" >"$home/.npmrc"
    echo "-----BEGIN OPENSSH PRIVATE KEY----- fake" >"$home/.ssh/id_ed25519"
    chmod 600 "$home/.ssh/id_ed25519"
}

# stranger_repo: the stranger's repository, served from a local bare clone (no network), in
# WORK/repo.git (BARE); its tests report what the cage lets them do.
stranger_repo() {
    local src="$WORK/src"
    BARE="$WORK/repo.git"
    mkdir -p "$src"
    cat >"$src/Makefile" <<'MAKEFILE'
test:
	@grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
	@echo built > test-output.txt && echo project-write=ok
	@cat "$$HOME/.npmrc" >/dev/null 2>&1 && echo npmrc=READ || echo npmrc=hidden
	@cat "$$HOME/.ssh/id_ed25519" >/dev/null 2>&1 && echo sshkey=READ || echo sshkey=hidden
	@echo planted > "$$HOME/planted-by-tests" 2>/dev/null && echo home-write=DONE || echo home-write=refused
	@echo TESTS-PASSED
MAKEFILE
    cat >"$src/package.json" <<'PACKAGE'
{ "name": "stranger-app", "version": "1.0.0", "private": true, "scripts": { "test": "make test" } }
PACKAGE
    git -C "$src" init -q
    git -C "$src" -c user.name=t -c user.email=t@t add Makefile package.json
    git -C "$src" -c user.name=t -c user.email=t@t commit -q -m one
    git clone -q --bare "$src" "$BARE"
}

# worker_policy FILE ROOT BARE: the forge policy with ROOT as its work root, and the bare
# repository (outside any project) readable by the cage.
worker_policy() {
    node -e '
const [file, root, bare] = process.argv.slice(1);
const name = require("path").basename(file, ".json");
require("fs").writeFileSync(file, JSON.stringify({ name, extends: "forge",
  workspace: { roots: [root] }, cage: { read: [bare] } }, null, 2));' "$@"
}
