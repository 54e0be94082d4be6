# Shared by the end-to-end tests: a work directory, failure messages, and the Hermes round
# trip (payload -> `toolcage hook` -> the rewrite the agent would run).
# Sourced after `set -euo pipefail`; needs TOOLCAGE (the built toolcage binary).

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

skip() {
    echo "SKIP: $*"
    exit 77
}

# Under /var/tmp (user_home.sh puts a home under /tmp on purpose), never inside a git checkout
# (the workspace would be its top level).
make_work() {  # make_work NAME -> sets WORK, removed on exit unless KEEP_WORK=1
    local base="${TOOLCAGE_TEST_DIR:-/var/tmp}"
    mkdir -p "$base"
    WORK=$(mktemp -d "$base/toolcage-e2e-$1-XXXXXX")
}

# The pids of helpers a test started; killed (each by its id) with the work dir on exit, and
# the files a test put outside it (REMOVE_ON_EXIT).
BACKGROUND=()
REMOVE_ON_EXIT=()
cleanup() {
    local pid
    for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null || true; done
    if declare -F forget_claude_project >/dev/null; then forget_claude_project "${PROJECT:-}"; fi
    if declare -F forget_openclaw_run >/dev/null; then forget_openclaw_run; fi
    [ ${#REMOVE_ON_EXIT[@]} -eq 0 ] || rm -f -- "${REMOVE_ON_EXIT[@]}"
    if [ -n "${WORK:-}" ]; then
        if [ "${KEEP_WORK:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
    fi
}
trap cleanup EXIT
# Killed by CTest's timeout or ^C: the work directory goes all the same.
trap 'exit 143' TERM INT HUP

source "$(dirname "${BASH_SOURCE[0]}")/npm_claude_code.sh"

# has_line_with FILE TEXT... : some line of FILE holds every TEXT (plain strings). One awk
# reads the whole file: `grep A FILE | grep -q B` under pipefail fails when grep -q stops
# reading early and the first grep dies of SIGPIPE on a long log.
has_line_with() {
    local file="$1"
    shift
    awk 'BEGIN { n = ARGC - 2; for (i = 2; i < ARGC; i++) want[i - 1] = ARGV[i]; ARGC = 2 }
         { ok = 1; for (i = 1; i <= n; i++) if (!index($0, want[i])) { ok = 0; break } if (ok) found = 1 }
         END { exit !found }' "$file" "$@"
}

# hermes_payload COMMAND WORKDIR: a Hermes pre_tool_call for its terminal tool.
hermes_payload() {
    node -e '
const [command, ws] = process.argv.slice(1);
console.log(JSON.stringify({ hook_event_name: "pre_tool_call", tool_name: "terminal",
  tool_input: { command, workdir: ws }, session_id: "s", cwd: ws, profile: "p" }));' "$1" "$2"
}

# hermes_rewrite POLICY COMMAND WORKDIR: asks the hook, insists on a modify answer carrying a
# new command, and prints that command.
hermes_rewrite() {
    local policy="$1" command="$2" ws="$3" answer
    answer=$(hermes_payload "$command" "$ws" | "$TOOLCAGE" hook --agent hermes --policy "$policy") \
        || fail "toolcage hook exited $? for: $command"
    node -e '
const a = JSON.parse(process.argv[1]);
const keys = Object.keys(a).sort().join(",");
if (keys !== "action,args" || a.action !== "modify" || !a.args ||
    Object.keys(a.args).join(",") !== "command" || typeof a.args.command !== "string") {
  console.error("not a {\"action\":\"modify\",\"args\":{\"command\":...}} answer: " + process.argv[1]);
  process.exit(1);
}
console.log(a.args.command);' "$answer" || fail "the hook did not cage: $command"
}

# toolcage's state directory, as toolcage finds it: the suite's own under CTest
# ($TOOLCAGE_STATE_DIR), else the user database's home's, else /tmp/toolcage-state-<uid>.
toolcage_state_dir() {
    if [ -n "${TOOLCAGE_STATE_DIR:-}" ]; then echo "$TOOLCAGE_STATE_DIR"; return; fi
    local home; home=$(getent passwd "$(id -u)" | cut -d: -f6)
    if [ -d "$home" ]; then echo "$home/.local/state/toolcage"; else echo "/tmp/toolcage-state-$(id -u)"; fi
}

# run_as_agent WORKDIR HOME REWRITE: runs the rewrite with bash in WORKDIR, as the agent would.
# Prints its output (stdout and stderr); its exit status is in RUN_RC. The decision log and the
# journal (which toolcage writes outside the cage) go to the suite's state directory, so that
# $HOME shows only what the steps wrote.
run_as_agent() {
    local ws="$1" home="$2" rewrite="$3"
    set +e
    RUN_OUT=$(cd "$ws" && env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$home" LANG=C.UTF-8 \
        ${TOOLCAGE_STATE_DIR:+"TOOLCAGE_STATE_DIR=$TOOLCAGE_STATE_DIR"} bash -c "$rewrite" 2>&1)
    RUN_RC=$?
    set -e
}

# start_node_helper NAME SCRIPT: a node helper taking PORT_FILE LOG_FILE (WORK/NAME.port,
# WORK/NAME.log); sets HELPER_PORT. Not in $(...): its pid must reach BACKGROUND.
start_node_helper() {
    local name="$1"
    shift
    node "$@" "$WORK/$name.port" "$WORK/$name.log" &
    BACKGROUND+=($!)
    for _ in $(seq 1 100); do [ -s "$WORK/$name.port" ] && break; sleep 0.1; done
    [ -s "$WORK/$name.port" ] || fail "$name did not start"
    HELPER_PORT=$(cat "$WORK/$name.port")
}

# claude_payload COMMAND CWD: Claude Code's PreToolUse for its Bash tool.
claude_payload() {
    node -e '
const [command, cwd] = process.argv.slice(1);
console.log(JSON.stringify({ session_id: "s", transcript_path: "/dev/null", cwd,
  permission_mode: "default", hook_event_name: "PreToolUse", tool_name: "Bash",
  tool_input: { command, description: "e2e", timeout: 120000 }, tool_use_id: "toolu_e2e" }));' "$1" "$2"
}

# claude_rewrite POLICY COMMAND CWD: asks the hook in Claude Code's dialect, insists on an allow
# carrying updatedInput.command (a caged command), and prints that command.
claude_rewrite() {
    local policy="$1" command="$2" cwd="$3" answer
    answer=$(claude_payload "$command" "$cwd" | "$TOOLCAGE" hook --agent claude --policy "$policy") \
        || fail "toolcage hook exited $? for: $command"
    node -e '
const a = JSON.parse(process.argv[1]);
const h = a.hookSpecificOutput || {};
if (h.hookEventName !== "PreToolUse" || h.permissionDecision !== "allow" || !h.updatedInput ||
    typeof h.updatedInput.command !== "string") {
  console.error("not a caged answer: " + process.argv[1]);
  process.exit(1);
}
console.log(h.updatedInput.command);' "$answer" || fail "the hook did not cage: $command"
}
