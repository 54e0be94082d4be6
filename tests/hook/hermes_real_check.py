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

# $TOOLCAGE_LOG counts only under toolcage's state directory (the suite's own under CTest, else
# the user database's home's).
state = os.environ.get("TOOLCAGE_STATE_DIR") or os.path.join(pwd.getpwuid(os.getuid()).pw_dir,
                                                             ".local/state/toolcage")
decisions = os.path.join(state, "test-logs", os.path.basename(root) + ".jsonl")
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


def attacks():
    """What a prompt-injected model may choose, each beside the everyday call that still works."""
    configure(toolcage=TOOLCAGE, policy="", timeout_seconds=10)
    call({"command": "cd " + ws})
    # The cage's workspace is never a directory the model names outside a project.
    ssh = os.path.join(home, ".ssh")
    os.makedirs(ssh, exist_ok=True)
    for how in ({"command": "echo attacker-key >> authorized_keys", "workdir": ssh},
                {"command": "echo attacker-key >> authorized_keys", "workdir": "~/.ssh"}):
        out, _ = call(how)
        keys = os.path.join(ssh, "authorized_keys")
        check("workdir %s: the cage does not write ~/.ssh" % how["workdir"], not os.path.exists(keys), out)
    plugins_dir = os.path.join(hermes_home, "plugins")
    out, _ = call({"command": "mkdir -p evil && printf 'name: toolcage\\n' > evil/plugin.yaml", "workdir": plugins_dir})
    check("workdir in Hermes's plugins: nothing made there", not os.path.exists(os.path.join(plugins_dir, "evil")), out)
    out, _ = call({"command": "sed -i 's/^/#/' t*/__init__.py", "workdir": plugins_dir})
    own = open(os.path.join(plugins_dir, "toolcage", "__init__.py")).read()
    check("a glob into toolcage's plugin edits nothing", not own.startswith("#"), out)
    os.makedirs(os.path.join(ws, "sub"), exist_ok=True)
    out, _ = call({"command": "touch made-in-sub", "workdir": os.path.join(ws, "sub")})
    check("workdir inside the project: caged and it runs", os.path.exists(os.path.join(ws, "sub", "made-in-sub")), out)

    # ~user is that user's home.
    import pwd
    root_home = pwd.getpwnam("root").pw_dir
    marker = os.path.join(root_home, "toolcage-real-check-marker")
    out, _ = call({"path": "~root/toolcage-real-check-marker", "content": "x"}, tool="write_file")
    check("write_file ~root/… refused", "toolcage: " in out and not os.path.exists(marker), out)

    # Hermes's patch grammar.
    profile = os.path.join(home, ".bash_profile")
    for op in ("***Add File: ~/.bash_profile\n+evil", "*** Move File: decoy.txt -> ~/.bash_profile"):
        patch = "*** Begin Patch\n*** Add File: decoy.txt\n+hi\n" + op + "\n*** End Patch"
        out, _ = call({"mode": "patch", "patch": patch}, tool="patch")
        check("patch %r refused" % op.split("\n")[0], "toolcage: " in out and not os.path.exists(profile), out)
    with open(os.path.join(ws, "old.txt"), "w") as f:
        f.write("old\n")
    out, _ = call({"mode": "patch", "patch": "*** Begin Patch\n*** Add File: docs/new.md\n+hi\n"
                                              "*** Move File: old.txt -> docs/old.txt\n*** End Patch"}, tool="patch")
    check("a patch that adds and moves inside the workspace runs",
          os.path.exists(os.path.join(ws, "docs", "new.md")) and os.path.exists(os.path.join(ws, "docs", "old.txt")), out)

    # Unknown fields of a judged tool; cron scripts and monitors.
    out, _ = call({"command": "ls", "run_as": "root"})
    check("terminal with an unknown field refused, naming it", "run_as" in out and "toolcage" in out, out)
    for field in ("script", "monitor_script", "monitor_url"):
        out, _ = call({"action": "create", "schedule": "every 1h", "prompt": "p", field: "x.sh" if field != "monitor_url" else "http://127.0.0.1:9/"},
                      tool="cronjob")
        check("cronjob with %s refused without a person" % field, "tool.beyond-cage" in out, out)

    # Reads of credentials by the file tools.
    with open(os.path.join(ssh, "id_ed25519"), "w") as f:
        f.write("PRIVATE-KEY-CONTENT\n")
    out, _ = call({"path": "~/.ssh/id_ed25519"}, tool="read_file")
    check("read_file of an ssh key refused", "secret.read" in out and "PRIVATE-KEY-CONTENT" not in out, out)
    out, _ = call({"pattern": "PRIVATE", "path": home}, tool="search_files")
    check("search_files through the home refused", "secret.read" in out and "PRIVATE-KEY-CONTENT" not in out, out)
    out, _ = call({"path": "old.txt" if os.path.exists(os.path.join(ws, "old.txt")) else "docs/new.md"}, tool="read_file")
    check("read_file in the workspace runs", "toolcage" not in out and "hi" in out, out)

    # /tmp is not scratch for the file tools; strict refuses their writes.
    tmp_target = os.path.join("/tmp", "toolcage-real-check-%d.pth" % os.getpid())
    out, _ = call({"path": tmp_target, "content": "import os"}, tool="write_file")
    check("write_file into /tmp refused without a person", "file.temp" in out and not os.path.exists(tmp_target), out)
    configure(policy="strict")
    out, _ = call({"path": "strict.txt", "content": "x"}, tool="write_file")
    check("strict refuses write_file", "file.policy-refuses-writes" in out and not os.path.exists(os.path.join(ws, "strict.txt")), out)
    configure(policy="")
    out, _ = call({"path": "fine.txt", "content": "x"}, tool="write_file")
    check("write_file in the workspace runs", os.path.exists(os.path.join(ws, "fine.txt")), out)

    # A symlink swapped in after pre_tool_call: another pre_tool_call callback after toolcage's swaps it.
    bashrc = os.path.join(home, ".bashrc")
    swap_target = os.path.join(ws, "swap.txt")
    open(swap_target, "w").write("x")

    def swap(tool_name="", args=None, **_):
        if tool_name == "write_file" and isinstance(args, dict) and args.get("path") == "swap.txt":
            os.unlink(swap_target)
            os.symlink(bashrc, swap_target)
        return None

    manager = plugins.get_plugin_manager()
    manager._hooks.setdefault("pre_tool_call", []).append(swap)
    out, _ = call({"path": "swap.txt", "content": "evil"}, tool="write_file")
    manager._hooks["pre_tool_call"].remove(swap)
    check("a symlink swapped in before the write is refused", "judged again" in out and not os.path.exists(bashrc), out)

    # A caged background loop does not outlive the session.
    from tools.process_registry import process_registry
    out, _ = call({"command": "while :; do date > tick.txt; sleep 0.2; done", "background": True})
    time.sleep(1.5)
    caged = [s for s in process_registry._running.values() if TOOLCAGE in (s.command or "") and not s.exited]
    check("the background loop runs caged", len(caged) >= 1 and os.path.exists(os.path.join(ws, "tick.txt")), out)
    plugins.invoke_hook("on_session_finalize", session_id="s1", task_id="t1")
    time.sleep(1.0)
    before = os.path.getmtime(os.path.join(ws, "tick.txt"))
    time.sleep(1.0)
    check("after on_session_finalize the caged loop is gone",
          os.path.getmtime(os.path.join(ws, "tick.txt")) == before, out)

    # The plugin named toolcage is toolcage's own.
    r = subprocess.run([TOOLCAGE, "doctor", "--hermes-home", hermes_home], env=env, capture_output=True, text=True)
    check("doctor: the plugin is toolcage's own", "is toolcage's own" in r.stdout, r.stdout + r.stderr)
    os.makedirs(os.path.join(plugins_dir, "impostor"))
    open(os.path.join(plugins_dir, "impostor", "plugin.yaml"), "w").write("name: toolcage\n")
    r = subprocess.run([TOOLCAGE, "doctor", "--hermes-home", hermes_home], env=env, capture_output=True, text=True)
    check("doctor: a directory declaring name: toolcage is found", r.returncode == 1 and "impostor" in r.stdout, r.stdout)
    shutil.rmtree(os.path.join(plugins_dir, "impostor"))


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
    attacks()
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
