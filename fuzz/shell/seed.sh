#!/bin/sh
# Writes the shell parser's seed corpus into $1: one file per command of the project's corpus
# (tests/data/commands.tsv) and of the team's shared one when it is there (../shared/data, or
# $TOOLCAGE_SHARED_DATA): column 1, with its \n \t \\ escapes decoded.
set -eu
out=${1:?usage: seed.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${TOOLCAGE_SHARED_DATA:-$root/../shared/data}/commands.tsv
mkdir -p "$out"
python3 - "$out" "$root/tests/data/commands.tsv" "$shared" <<'PY'
import sys, os
out, tsvs = sys.argv[1], sys.argv[2:]
def decode(s):
    res, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s) and s[i + 1] in 'nt\\':
            res.append({'n': '\n', 't': '\t', '\\': '\\'}[s[i + 1]])
            i += 2
        else:
            res.append(s[i])
            i += 1
    return ''.join(res)
n = 0
for tsv in tsvs:
    if not os.path.exists(tsv):
        print('seed.sh: skipped: %s not present' % tsv, file=sys.stderr)
        continue
    with open(tsv, encoding='utf-8') as f:
        next(f)
        for line in f:
            cmd = line.rstrip('\n').split('\t')[0]
            if cmd:
                with open(os.path.join(out, 'seed-%03d' % n), 'w', encoding='utf-8') as g:
                    g.write(decode(cmd))
                n += 1
PY
