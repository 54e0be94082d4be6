#!/bin/sh
# Writes the shell parser's seed corpus into $1: one file per command of the shared corpus
# (column 1 of commands.tsv, with its \n \t \\ escapes decoded).
set -eu
out=${1:?usage: seed.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
tsv=${TOOLCAGE_SHARED_DATA:-$root/../shared/data}/commands.tsv
mkdir -p "$out"
python3 - "$tsv" "$out" <<'PY'
import sys, os
tsv, out = sys.argv[1], sys.argv[2]
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
with open(tsv, encoding='utf-8') as f:
    next(f)
    for n, line in enumerate(f):
        cmd = line.rstrip('\n').split('\t')[0]
        if cmd:
            with open(os.path.join(out, 'seed-%03d' % n), 'w', encoding='utf-8') as g:
                g.write(decode(cmd))
PY
