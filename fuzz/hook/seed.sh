#!/bin/sh
# Writes hook_input_fuzz's seed corpus into $1: the shell seeds (fuzz/shell/seed.sh) as commands,
# a few agent payloads, and the pathological families the analysis is bounded against (values
# that double, many cd, many &&, deep nesting of each construct, brace products, many and long
# heredocs, deep JSON). A first byte of 0 makes the rest a command, 1 a JSON payload.
set -eu
out=${1:?usage: seed.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
shell_seeds=$(mktemp -d "${TMPDIR:-/tmp}/toolcage-hook-seed.XXXXXX")
trap 'rm -rf "$shell_seeds"' EXIT
"$here/../shell/seed.sh" "$shell_seeds" >/dev/null 2>&1 || true
python3 - "$out" "$shell_seeds" <<'PY'
import os, sys
out, shell_seeds = sys.argv[1], sys.argv[2]
n = 0
def put(kind, text):
    global n
    with open(os.path.join(out, 'seed-%05d' % n), 'wb') as f:
        f.write(bytes([kind]) + text.encode('utf-8', 'surrogateescape'))
    n += 1
for name in sorted(os.listdir(shell_seeds))[:2000]:
    with open(os.path.join(shell_seeds, name), 'rb') as f:
        put(0, f.read().decode('utf-8', 'surrogateescape'))
def nest(open_, close, inner, k):
    return open_ * k + inner + close * k
for k in (16, 256, 4096):
    put(0, 'x=a; ' + 'x=$x$x; ' * (k // 8) + 'echo $x')
    put(0, ''.join('cd d%d; ' % i for i in range(k // 8)) + 'echo x > f')
    put(0, 'cd . && ' * (k // 8) + 'make')
    put(0, nest('(', ')', 'ls', k))
    put(0, 'echo ' + nest('$(', ')', 'ls', k))
    put(0, nest('{ ', '; }', 'ls', k))
    put(0, nest('if ', '; then ls; fi', 'true', k))
    put(0, nest('while ', '; do ls; done', 'true', k))
    put(0, 'cat ' + nest('<(', ')', 'ls', k))
    put(0, 'echo $((' + nest('(', ')', '1', k) + '))')
    put(0, 'echo ' + nest('${x:-', '}', 'a', k))
    put(0, 'echo ' + '{a,b}' * min(k, 40))
    put(0, 'cat <<E\nx\nE\n' * (k // 8))
    put(0, 'cat <<E\n' + 'line\n' * k + 'E\n')
    put(0, 'f() { echo ' + 'w ' * k + '; }; ' + 'f; ' * (k // 4))
    put(0, 'python3 -c "' + nest('(', ')', '1', k) + '"')
    put(0, 'python3 -c "print(' + nest('[', ']', '1', k) + ')"')
    put(0, 'echo ' + 'aGVsbG8K' * k + ' | base64 -d | base64 -d | sh')
    put(1, '{"x": ' + nest('[', ']', '', k) + ', "tool_name": "Bash", "tool_input": {"command": "ls"}}')
    put(1, nest('{"a":', '}', '1', k))
put(1, '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git status"}, "cwd": "/home/agent/project"}')
put(1, '{"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "ls"}, "cwd": "/home/agent/project"}')
put(1, '{"toolName": "exec", "params": {"command": "ls -la"}, "workspaceDir": "/home/agent/project"}')
print('seed.sh: %d seeds' % n, file=sys.stderr)
PY
