# bash completion for toolcage and toolcage-relay. Installed to
# share/bash-completion/completions/ (bash-completion loads it on first use).

_toolcage_policies() {
    toolcage policy list 2>/dev/null | cut -f1
}

_toolcage() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    fi
    local commands="check explain log policy run doctor hook install uninstall changes land undo"
    local i sub="" subsub=""
    for ((i = 1; i < cword; i++)); do
        [[ ${words[i]} == -- ]] && return  # after --: the command's own words
        if [[ ${words[i]} != -* ]]; then
            if [[ -z $sub ]]; then sub=${words[i]}
            elif [[ -z $subsub && ( $sub == policy || $sub == install || $sub == uninstall ) ]]; then subsub=${words[i]}
            fi
        fi
    done
    case $prev in
        --policy) COMPREPLY=($(compgen -W "$(_toolcage_policies)" -f -- "$cur")); return ;;
        --workdir|--cwd|--profile-dir|--hermes-home|--plugin-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --file|--settings) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --agent) COMPREPLY=($(compgen -W "hermes claude openclaw" -- "$cur")); return ;;
    esac
    local opts=""
    case $sub in
        "") COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur")); return ;;
        check) opts="--policy --cwd --workdir --json --batch --explain" ;;
        explain) opts="--policy --cwd --workdir --json" ;;
        log) opts="--file --deny --ask --cage --allow --since --agent --rule --session --persisted --stats --json --format --limit --all" ;;
        run) opts="--policy --workdir --cwd --best-effort --verbose --" ;;
        doctor) opts="--policy --workdir --cwd --json --hermes-home" ;;
        hook) opts="--agent --policy" ;;
        changes) opts="--workdir --step --all --json" ;;
        land|undo) opts="" ;;
        policy)
            case $subsub in
                "") COMPREPLY=($(compgen -W "list show validate which rules install openshell lint" -- "$cur")); return ;;
                show|validate) [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "$(_toolcage_policies)" -f -- "$cur")); return; } ;;
                openshell|lint)
                    opts="--relay --openshell-policy --providers --agent-env --npm-registry"
                    [[ $subsub == openshell ]] && opts="$opts --force"
                    [[ $subsub == lint ]] && opts="$opts --json"
                    [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "$(_toolcage_policies)" -f -- "$cur")); return; } ;;
                which) opts="--profile-dir" ;;
                rules) opts="--long --json" ;;
                install) opts="--name --force"; [[ $cur != -* ]] && { COMPREPLY=($(compgen -f -X '!*.json' -- "$cur")); compopt -o plusdirs 2>/dev/null; return; } ;;
            esac ;;
        install|uninstall)
            case $subsub in
                "") COMPREPLY=($(compgen -W "hermes claude openclaw --dry-run" -- "$cur")); return ;;
                hermes) opts="--profile --hermes-home --plugin-dir --hermes-version --dry-run" ;;
                claude) opts="--settings --dry-run" ;;
                openclaw) opts="--config --plugin-dir --dry-run" ;;
            esac
            [[ $sub == install ]] && opts="$opts --policy"
            [[ $sub == install && $subsub == hermes ]] && opts="$opts --print" ;;
    esac
    COMPREPLY=($(compgen -W "$opts --help --version" -- "$cur"))
}
complete -F _toolcage toolcage

_toolcage_relay() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    COMPREPLY=($(compgen -W "--listen --listen-fd --allow --upstream --upstream-file --token-file --allow-private --allow-missing-sni --inspect-file --make-ca --rotate --watch-fd --ready-fd --detach --log --step --max-tunnels --header-timeout-ms --connect-timeout-ms --handshake-timeout-ms --idle-timeout --idle-timeout-ms --help --version" -- "$cur"))
}
complete -F _toolcage_relay toolcage-relay
