#!/bin/sh
# make_page.sh HELP2MAN TOOLCAGE OUT.1 INCLUDE_DIR [WORDS...]: the man page of `toolcage WORDS`
# (toolcage.1 without words) from its --help and --version, with the EXIT STATUS of the first
# word's include file and the FILES, ENVIRONMENT and SEE ALSO every page shares.
set -eu
help2man=$1 bin=$2 out=$3 dir=$4
shift 4
words="$*"
if [ -z "$words" ]; then
    page=toolcage include="$dir/toolcage.h2m"
    what="a second fence for AI agents that run other people's code"
else
    page="toolcage-$(printf '%s' "$words" | tr ' ' -)" include="$dir/$1.h2m"
    # CLI11 prints the subcommand's description on the first line of its --help.
    what=$("$bin" $words --help | sed -n '1{s/[.]$//;p;}')
fi
"$help2man" --no-info --no-discard-stderr --section 1 --name "$what" \
    --help-option "$words --help" --version-option "$words --version" \
    --include "$include" --include "$dir/common.h2m" --output "$out.tmp" "$bin"
# help2man names the page after the program: the subcommand's page is named for its words.
upper=$(printf '%s' "$page" | tr a-z A-Z)
sed -e "s/^\\.TH TOOLCAGE /.TH $(printf '%s' "$upper" | sed 's/-/\\\\-/g') /" \
    -e "s/^toolcage \\\\- /$(printf '%s' "$page" | sed 's/-/\\\\-/g') \\\\- /" "$out.tmp" > "$out"
rm -f "$out.tmp"
