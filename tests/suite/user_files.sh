#!/usr/bin/env bash
# The suite leaves the user's own files alone: its first test (start) makes the suite's state
# directory and records what the user's own state looks like; its last (check) fails on any change
# to that, and on anything the tests left in /tmp or /var/tmp under the suite's names.
#   user_files.sh start|check FINGERPRINT STATE_DIR
set -u
mode=$1 fingerprint=$2 state=$3
case $state in /*) ;; *) echo "the state directory must be an absolute path: $state"; exit 2 ;; esac

# The user's own: toolcage's state directories (found from the user database, as toolcage finds
# them, not from $HOME) and git's global configuration.
home=$(getent passwd "$(id -u)" | cut -d: -f6)
own_state() {
    local d
    for d in "$home/.local/state/toolcage" "/tmp/toolcage-state-$(id -u)" "$home/.gitconfig" \
             "$home/.config/git/config" "$home/.config/toolcage"; do
        if [ -e "$d" ] || [ -L "$d" ]; then
            find "$d" -printf '%p %y %s %T@ %m %u\n' 2>&1 | LC_ALL=C sort
        else
            echo "$d absent"
        fi
    done
}
# What the tests make under the shared temporary directories carries one of these prefixes; the
# programs they run make the others where TMPDIR does not reach (Claude Code's project and socket
# directories, a JVM's perf data, OpenClaw's temporary root and state locks, Node.js's compile cache).
temp_entries() {
    find /tmp /var/tmp -mindepth 1 -maxdepth 1 \( -name 'toolcage-*' -o -name 'refusal-log-*' \
        -o -name 'classify-*' -o -name 'claude-*' -o -name 'cc-socks*' -o -name 'hsperfdata_*' \
        -o -name 'openclaw*' -o -name 'node-compile-cache' \) \
        -printf '%p %u\n' 2>/dev/null | LC_ALL=C sort
}

# toolcage takes the suite's state directory only where no other user could have planted it
# (private_dir_problem): every ancestor root's or the user's and writable by no one else.
ancestors_problem() {
    local d=$1 mode owner
    while [ "$d" != / ]; do
        d=$(dirname "$d")
        read -r mode owner < <(stat -c '%a %u' "$d") || { echo "$d: cannot stat"; return; }
        if [ "$owner" != 0 ] && [ "$owner" != "$(id -u)" ]; then echo "$d: owned by uid $owner"; return; fi
        if (( 8#$mode & 8#022 )) && ! { (( 8#$mode & 8#1000 )) && [ "$owner" = 0 ]; }; then
            echo "$d: mode $mode, writable by group or others"; return
        fi
    done
}

case $mode in
start)
    if problem=$(ancestors_problem "$state") && [ -n "$problem" ]; then
        echo "FAIL: toolcage would not take $state as the suite's state directory: $problem"
        echo "(chmod g-w,o-w that directory, or build in a directory only you can write)"
        exit 1
    fi
    # A state directory of the suite's own, for $TOOLCAGE_STATE_DIR (common/user_home.cpp): the
    # user's, mode 0700, with the marker file 0600. Fresh for every run.
    rm -rf "$state"
    (umask 077 && mkdir -p "$state" && : > "$state/.toolcage-test-state") || exit 1
    chmod 0700 "$state" && chmod 0600 "$state/.toolcage-test-state" || exit 1
    { own_state; echo '--- temp'; temp_entries; } > "$fingerprint" || exit 1
    # The forge policy's steps keep their package caches in ~/.cache/toolcage-steps (made by
    # toolcage when a step needs it): what the suite's forge steps make there is the suite's to
    # remove, when the user had none before.
    for d in "$home/.cache" "$home/.cache/toolcage-steps"; do
        [ -e "$d" ] || [ -L "$d" ] || echo "$d"
    done > "$fingerprint.absent" || exit 1
    echo "the suite's state directory: $state"
    echo "recorded the user's own files in $fingerprint"
    ;;
check)
    [ -f "$fingerprint" ] || { echo "no fingerprint at $fingerprint: run the suite's first test (suite_start)"; exit 1; }
    # A step's processes may outlive the test that started them by a moment (a relay idling out,
    # a supervisor putting its TMPDIR aside): wait, a few seconds at most, for the build's
    # programs to end before looking.
    for _ in $(seq 1 20); do
        pgrep -f "$(dirname "$state")/toolcage" >/dev/null 2>&1 || break
        sleep 0.5
    done
    # toolcage keeps an emptied TMPDIR for the next step (/tmp/toolcage-spare-UID-N, by design);
    # the ones the suite's steps left are the suite's to remove.
    # So is an empty step TMPDIR (/tmp/toolcage-XXXXXX) whose supervisor a test killed on purpose:
    # toolcage's recovery would finish it at the next step there; one with anything in it is a
    # leftover.
    while read -r path _; do
        grep -q "^$path " "$fingerprint" && continue
        case $path in
            /tmp/toolcage-spare-*) rm -rf -- "$path" ;;
            /tmp/toolcage-??????)
                if [ -d "$path" ] && [ -z "$(ls -A "$path" 2>/dev/null)" ]; then
                    echo "removed an empty step TMPDIR a killed step left: $path"
                    rmdir -- "$path"
                fi ;;
        esac
    done < <(temp_entries)
    if [ -f "$fingerprint.absent" ]; then
        if grep -qxF "$home/.cache/toolcage-steps" "$fingerprint.absent" && [ -d "$home/.cache/toolcage-steps" ]; then
            rm -rf -- "$home/.cache/toolcage-steps" && echo "removed the forge steps' cache the suite made: $home/.cache/toolcage-steps"
        fi
        if grep -qxF "$home/.cache" "$fingerprint.absent"; then rmdir -- "$home/.cache" 2>/dev/null || true; fi
    fi
    now=$(mktemp "${fingerprint}.XXXXXX") || exit 1
    { own_state; echo '--- temp'; temp_entries; } > "$now"
    before_own=$(sed '/^--- temp$/,$d' "$fingerprint"); after_own=$(sed '/^--- temp$/,$d' "$now")
    before_tmp=$(sed '1,/^--- temp$/d' "$fingerprint"); after_tmp=$(sed '1,/^--- temp$/d' "$now")
    rm -f "$now"
    fail=0
    if [ "$before_own" != "$after_own" ]; then
        echo "FAIL: the tests changed the user's own files (toolcage's state, git's configuration):"
        diff <(echo "$before_own") <(echo "$after_own") | sed -n 's/^< /  before: /p; s/^> /  after:  /p' | head -40
        echo "(a test ran toolcage or git without the suite's state directory or its own git configuration;"
        echo " or something else, an agent of the user's, wrote there while the suite ran)"
        fail=1
    fi
    left=$(comm -13 <(echo "$before_tmp") <(echo "$after_tmp"))
    if [ -n "$left" ]; then
        echo "FAIL: the tests left these behind in /tmp and /var/tmp:"
        echo "$left" | sed 's/^/  /' | head -40
        fail=1
    fi
    [ $fail = 0 ] && echo "the user's own files are as they were; nothing left in /tmp or /var/tmp"
    exit $fail
    ;;
*) echo "usage: $0 start|check FINGERPRINT STATE_DIR"; exit 2 ;;
esac
