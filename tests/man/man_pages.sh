#!/bin/bash
# The man pages against the binaries: one for toolcage, one for each subcommand that has a
# --help of its own, and one for toolcage-relay; each names every option its command's --help
# lists and has EXIT STATUS, FILES and ENVIRONMENT; `cmake --install` puts them all in
# <prefix>/share/man/man1 (what install.sh runs), and man reads each.
# man_pages.sh BUILD_DIR COMMAND...   (COMMAND: a subcommand's words joined by ':')
set -u
build=$1
shift
fail=0
say() { echo "man_pages: $*"; fail=1; }

# The --help of `toolcage WORDS`: the subcommands it lists must have pages too.
check_page() {
    local page=$1 bin=$2
    shift 2
    local file="$build/man/$page.1"
    if [ ! -s "$file" ]; then say "$file: missing"; return; fi
    for section in "EXIT STATUS" "FILES" "ENVIRONMENT" "OPTIONS\|SYNOPSIS\|DESCRIPTION"; do
        grep -q "^\.SH \"\?\($section\)" "$file" || say "$file: no $section section"
    done
    # Every long option the command's --help names is in its page (roff writes - as \-).
    local opts
    opts=$("$bin" "$@" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
    [ -n "$opts" ] || say "$page: its --help names no option"
    for o in $opts; do
        grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$file" || say "$file: does not name $o"
    done
    # The subcommands its --help lists have pages of their own.
    local sub
    for sub in $("$bin" "$@" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
        local words=("$@" "$sub")
        local name="toolcage-$(IFS=-; echo "${words[*]}")"
        [ -s "$build/man/$name.1" ] || say "$name.1: missing (\`toolcage ${words[*]}\` has a --help)"
    done
    # man renders it without a warning.
    local warnings
    warnings=$(MANWIDTH=80 man --warnings -l "$file" 2>&1 >/dev/null)
    [ -z "$warnings" ] || say "$file: man warns: $warnings"
}

check_page toolcage "$build/toolcage"
for cmd in "$@"; do
    IFS=: read -r -a words <<<"$cmd"
    check_page "toolcage-$(IFS=-; echo "${words[*]}")" "$build/toolcage" "${words[@]}"
done
check_page toolcage-relay "$build/toolcage-relay"
grep -q "toolcage install claude:" "$build/man/toolcage.1" || say "toolcage.1: its EXIT STATUS does not name the commands' error lines"

# What install.sh installs: every page, under <prefix>/share/man/man1.
prefix="$build/man-install-check"
rm -rf "$prefix"
if cmake --install "$build" --prefix "$prefix" >/dev/null; then
    for f in "$build"/man/*.1; do
        [ -f "$prefix/share/man/man1/$(basename "$f")" ] || say "cmake --install: no $(basename "$f") in $prefix/share/man/man1"
    done
else
    say "cmake --install $build failed"
fi
rm -rf "$prefix"
[ "$fail" -eq 0 ] && echo "man_pages: $(ls "$build"/man/*.1 | wc -l) pages, each with its options, EXIT STATUS, FILES and ENVIRONMENT"
exit "$fail"
