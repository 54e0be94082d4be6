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
expect "toolcage ch" "check"
expect "toolcage ex" "explain"
expect "toolcage policy va" "validate"
expect "toolcage log --st" "--stats"
expect "toolcage run --verb" "--verbose"
expect "toolcage check --ag" ""
expect "toolcage hook --agent cl" "claude"
expect "toolcage run -- ls --he" ""
if command -v zsh >/dev/null; then zsh -n "$src/completions/_toolcage" || fail=1; fi
exit $fail
