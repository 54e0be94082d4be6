#!/usr/bin/env bash
# The bash completion completes commands, policy subcommands and options, and stops after `--`;
# the zsh one at least parses (when zsh is installed).
set -uo pipefail
src=${TOOLCAGE_SOURCE_DIR:?}
# shellcheck source=/dev/null
source "$src/completions/toolcage.bash"
fail=0
expect() {  # expect "WORDS..." "COMPLETIONS"
    read -r -a COMP_WORDS <<<"$1"
    [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _toolcage
    if [[ "${COMPREPLY[*]:-}" != "$2" ]]; then
        echo "FAIL: '$1' completed to '${COMPREPLY[*]:-}', expected '$2'"
        fail=1
    fi
}
expect "toolcage ch" "check changes"
expect "toolcage un" "uninstall undo"
expect "toolcage changes --st" "--step"
expect "toolcage ex" "explain"
expect "toolcage policy va" "validate"
expect "toolcage log --st" "--stats"
expect "toolcage run --verb" "--verbose"
expect "toolcage check --ag" ""
expect "toolcage hook --agent cl" "claude"
expect "toolcage run -- ls --he" ""
expect "toolcage policy li" "list lint"
expect "toolcage check --wo" "--workdir"

# Against the built binary: every option offered is one its --help lists, and every
# subcommand of `policy`, `install` and `uninstall` is offered.
bin=${TOOLCAGE_BIN:-}
if [ -n "$bin" ] && [ -x "$bin" ]; then
    offered() {  # the options completed after WORDS
        read -r -a COMP_WORDS <<<"$1 -"
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        _toolcage
        echo "${COMPREPLY[*]:-}"
    }
    for words in check explain log run doctor hook changes land undo "policy show" "policy validate" "policy which" \
                 "policy rules" "policy install" "policy lint" "policy openshell" \
                 "install hermes" "install claude" "install openclaw" \
                 "uninstall hermes" "uninstall claude" "uninstall openclaw"; do
        # shellcheck disable=SC2086
        help=$("$bin" $words --help 2>&1)
        for o in $(offered "toolcage $words"); do
            case $o in --|--help|--version) continue ;; esac
            if ! grep -qE -- "(^|[ ,])$o([ ,=]|$)" <<<"$help"; then
                echo "FAIL: the completion offers $o after 'toolcage $words', which does not take it"
                fail=1
            fi
        done
    done
    for sub in policy install uninstall; do
        read -r -a COMP_WORDS <<<"toolcage $sub "
        COMP_WORDS+=("")
        COMP_CWORD=2
        COMPREPLY=()
        _toolcage
        for s in $("$bin" $sub --help 2>&1 | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}'); do
            if [[ " ${COMPREPLY[*]:-} " != *" $s "* ]]; then
                echo "FAIL: 'toolcage $sub ' does not complete $s"
                fail=1
            fi
        done
    done
else
    echo "note: TOOLCAGE_BIN not set: the completions are not compared with the binary's --help"
fi
if command -v zsh >/dev/null; then zsh -n "$src/completions/_toolcage" || fail=1; fi
exit $fail
