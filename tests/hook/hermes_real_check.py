"""A check by hand against a real Hermes Agent source tree (not run by ctest: it needs the tree).

Installs toolcage into a fresh profile with `toolcage install hermes`, loads Hermes's own
plugin system, and sends tool calls through Hermes's own dispatch, model_tools.handle_function_call
(tool_request middleware, pre_tool_call, the approval gate, the real terminal tool), as the
agent loop does for each tool call the model makes.

    python3 tests/hook/hermes_real_check.py HERMES_TREE TOOLCAGE_BIN SCRATCH_DIR [case]

Cases: all (default, no terminal), ask-once / ask-deny (run under `script` with the answer on
stdin, so that a terminal shows Hermes's prompt). Prints one line per check; exits 1 on a failure.
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
import time

TREE, TOOLCAGE, SCRATCH = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
CASE = sys.argv[4] if len(sys.argv) > 4 else "all"
failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else "  -- " + str(detail)[:600]))
    if not ok:
        failures.append(what)


root = os.path.join(SCRATCH, "hermes-real-" + CASE)
shutil.rmtree(root, ignore_errors=True)
home = os.path.join(root, "home")
hermes_home = os.path.join(home, ".hermes")
ws = os.path.join(home, "src", "project")
os.makedirs(hermes_home)
os.makedirs(ws)
subprocess.run(["git", "init", "-q", ws], check=True)
with open(os.path.join(ws, ".git", "objects", "keep"), "w") as f:
    f.write("history\n")
with open(os.path.join(home, "secret.txt"), "w") as f:
    f.write("secret\n")
with open(os.path.join(hermes_home, "config.yaml"), "w") as f:
    f.write("model:\n  default: stub\nhooks: {}\nplugins:\n  enabled: []\n")
asking = os.path.join(root, "asking.json")
with open(asking, "w") as f:
    json.dump({"name": "asking", "extends": "default", "hermes_approve": True,
               "rules": [{"id": "test.ask-me", "program": "echo", "args": ["ask-me"], "verdict": "ask",
                          "reason": "the check asks a person"}]}, f)

env = dict(os.environ, HOME=home, HERMES_HOME=hermes_home)
r = subprocess.run([TOOLCAGE, "install", "hermes", "--hermes-home", hermes_home], env=env,
                   capture_output=True, text=True)
check("toolcage install hermes", r.returncode == 0, r.stdout + r.stderr)
print(r.stdout)

# $TOOLCAGE_LOG counts only under toolcage's state directory (the user database's home).
decisions = os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".local/state/toolcage/test-logs",
                         os.path.basename(root) + ".jsonl")
os.environ.update(HOME=home, HERMES_HOME=hermes_home, TERMINAL_CWD=ws, TOOLCAGE_LOG=decisions)
os.chdir(root)  # Hermes's own directory is not the workspace
sys.path.insert(0, TREE)
sys.argv = ["hermes", "chat"]
if CASE.startswith("ask"):
    os.environ["HERMES_INTERACTIVE"] = "1"
import model_tools  # noqa: E402
from hermes_cli import plugins  # noqa: E402

plugins.discover_plugins()
loaded = {p.get("name"): p for p in plugins.get_plugin_manager().list_plugins()}
check("plugin loaded by Hermes", loaded.get("toolcage", {}).get("enabled"), loaded.get("toolcage"))
# The second layer: the shell hook as Hermes registers it at start, approved by the allowlist
# entry `toolcage install hermes` recorded (no consent prompt, no accept flag).
from agent import shell_hooks  # noqa: E402
from hermes_cli.config import load_config  # noqa: E402

specs = shell_hooks.register_from_config(load_config())
check("shell hook registered from the allowlist entry", len(specs) == 1, specs)


def call(args, tool="terminal", task="t1"):
    t0 = time.time()
    out = model_tools.handle_function_call(tool, dict(args), task_id=task, session_id="s1", tool_call_id="c%d" % time.time_ns())
    return out, time.time() - t0


def configure(**kw):
    path = os.path.join(hermes_home, "plugins", "toolcage", "config.json")
    cfg = json.load(open(path))
    cfg.update(kw)
    json.dump(cfg, open(path, "w"))


if CASE == "all":
    out, _ = call({"command": "rm -rf ~"})
    check("rm -rf ~ blocked by toolcage", "toolcage: " in out and os.path.exists(os.path.join(home, "secret.txt")), out)

    # A script the command line does not show: only the cage stands between it and the home.
    out, _ = call({"path": "build.sh", "content": "echo in-ws > made.txt\necho x > \"$HOME/pwned.txt\" || echo home-refused\n"},
                  tool="write_file")
    check("write_file into the workspace runs", os.path.exists(os.path.join(ws, "build.sh")), out)
    out, _ = call({"command": "bash build.sh"})
    check("caged script writes the workspace", os.path.exists(os.path.join(ws, "made.txt")), out)
    check("caged script cannot write the home", not os.path.exists(os.path.join(home, "pwned.txt")), out)
    log = open(decisions).read()
    check("the shell hook passed the plugin's rewrite as toolcage's own (no cage in the cage)",
          '"rule":"hook.own-rewrite"' in log.replace(" ", ""), log[-800:])

    out, _ = call({"command": "cd .git"})
    out2, _ = call({"command": "rm -rf objects"})
    check("after cd .git, rm -rf objects denied by toolcage", "toolcage: rm." in out2 and os.path.exists(
        os.path.join(ws, ".git", "objects", "keep")), out + " / " + out2)
    call({"command": "cd " + ws})

    configure(policy=asking)
    out, took = call({"command": "echo ask-me"})
    check("ask without a terminal refused at once (%.1fs)" % took, "none can" in out and took < 10, out)
    configure(policy="")

    bad = os.path.join(root, "crash")
    open(bad, "w").write("#!/bin/sh\nkill -SEGV $$\n")
    os.chmod(bad, 0o755)
    configure(toolcage=bad)
    out, _ = call({"command": "ls"})
    check("crashing toolcage blocks", "signal 11" in out, out)
    hang = os.path.join(root, "hang")
    open(hang, "w").write("#!/bin/sh\nsleep 60\n")
    os.chmod(hang, 0o755)
    configure(toolcage=hang, timeout_seconds=2)
    out, took = call({"command": "ls"})
    check("hanging toolcage blocks after its timeout (%.1fs)" % took, "no answer within 2 s" in out and took < 10, out)
    configure(toolcage=os.path.join(root, "missing"), timeout_seconds=10)
    out, _ = call({"command": "ls"})
    check("missing toolcage blocks", "cannot start" in out, out)
    configure(toolcage=TOOLCAGE)
    out, _ = call({"path": os.path.join(home, ".bashrc"), "content": "x"}, tool="write_file")
    check("write_file into the home blocked", "toolcage: file." in out and not os.path.exists(os.path.join(home, ".bashrc")), out)
else:
    configure(policy=asking)
    marker = os.path.join(home, "pwned-after-approval.txt")
    call({"path": "after.sh", "content": "echo x > %s || echo home-refused\n" % marker}, tool="write_file")
    out, _ = call({"command": "echo ask-me && bash after.sh"})
    print(out)
    if CASE == "ask-once":
        check("approved once: it ran", "ask-me" in out, out)
        check("approved once: it ran caged (the home stays unwritten)", not os.path.exists(marker), out)
    else:
        check("denied: it did not run", "ask-me\\n" not in out and not os.path.exists(marker), out)

sys.exit(1 if failures else 0)
