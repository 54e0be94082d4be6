"""toolcage for Hermes Agent: hands every tool call that runs code or writes files to
`toolcage hook --agent hermes` and applies its answer.

Callbacks, because Hermes offers no single one that can do everything:
- `tool_request` middleware (Hermes 0.19.0 and later) rewrites a caged command into
  toolcage's cage before any hook, guard, approval or the tool itself sees it;
- `pre_tool_call` judges every call (every tool: toolcage's policy says what a tool it does
  not know gets) again as it will really run and answers `block` (deny, failures, a rewrite
  that did not take) or `approve` (toolcage's `ask`: Hermes's own approval gate, only where a
  person can answer);
- `tool_execution` middleware judges a file write once more just before the tool writes, so a
  symlink swapped in since `pre_tool_call` is seen, and a write Hermes carries into later
  sessions (memory, a skill, a cron job) once more as it will run, so an entry changed since a
  person approved it is refused;
- at the session's end (`on_session_finalize`, `on_session_reset`, the process's exit) the
  caged background processes the session started are killed.

Standard library only; every decision is the toolcage binary's. Hermes treats a plugin
callback that raises as having no opinion, so each callback catches its own failures and
blocks instead. The binary's absolute path is fixed in config.json at install time.
"""

import atexit
import json
import os
import signal
import subprocess
import sys

PLUGIN_DIR = os.path.dirname(os.path.abspath(__file__))
CONFIG_FILE = os.path.join(PLUGIN_DIR, "config.json")
DEFAULT_TIMEOUT_SECONDS = 10
MAX_ANSWER_BYTES = 1 << 20

# Every tool call is judged by toolcage (its policy's hermes.other_tools decides the tools it
# does not know). Only the terminal's command is ever rewritten (into the cage), and only the
# file tools' writes are judged again just before they happen.
REWRITTEN_TOOLS = frozenset({"terminal"})
WRITING_TOOLS = frozenset({"write_file", "patch"})
# Tools whose writes Hermes puts into later sessions' prompts: judged again just before they run.
PERSISTING_TOOLS = frozenset({"memory", "skill_manage", "cronjob"})
# The file tools resolve a relative path against their own base directory, not the terminal's.
FILE_TOOLS = frozenset({"write_file", "patch", "read_file", "search_files"})

_TAG = "toolcage"


def _block(why):
    return {"action": "block", "message": "toolcage: " + why}


class Decision:
    """What toolcage answered, as the plugin applies it."""

    def __init__(self, kind, message="", args=None, rule_key=""):
        self.kind = kind  # "allow", "cage", "ask" or "block"
        self.message = message
        self.args = args
        self.rule_key = rule_key


# ---- configuration written by `toolcage install hermes`


def load_config(path=CONFIG_FILE):
    """The installed configuration; raises ValueError naming the file, the field and the fix."""
    fix = "run `toolcage install hermes` again"
    try:
        with open(path, "r", encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise ValueError(path + ": missing; " + fix)
    except (OSError, ValueError) as e:
        raise ValueError(path + ": unreadable (" + str(e) + "); " + fix)
    if not isinstance(cfg, dict):
        raise ValueError(path + ": not a JSON object; " + fix)
    binary = cfg.get("toolcage")
    if not isinstance(binary, str) or not os.path.isabs(binary):
        raise ValueError(path + ": /toolcage must be the binary's absolute path; " + fix)
    timeout = cfg.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 600:
        raise ValueError(path + ": /timeout_seconds must be a number of seconds in (0, 600]; " + fix)
    policy = cfg.get("policy", "")
    if not isinstance(policy, str):
        raise ValueError(path + ": /policy must be a string (empty: the profile's SOUL.md chooses); " + fix)
    profile_home = cfg.get("hermes_home", "")
    if not isinstance(profile_home, str):
        raise ValueError(path + ": /hermes_home must be a string; " + fix)
    return {"toolcage": binary, "timeout_seconds": timeout, "policy": policy, "hermes_home": profile_home}


# ---- what Hermes knows about the call


def hermes_home(cfg):
    """The profile's directory: Hermes's own answer, else where the plugin was installed."""
    try:
        from hermes_constants import get_hermes_home

        return str(get_hermes_home())
    except Exception:
        pass
    if cfg.get("hermes_home"):
        return cfg["hermes_home"]
    return os.path.dirname(os.path.dirname(PLUGIN_DIR))


def real_cwd(task_id, args):
    """The directory the terminal tool will run this call in, computed as terminal_tool does:
    an explicit workdir; else the session's recorded cwd (its last `cd`); else the task's
    override, the task's record, the configured cwd. Raises when Hermes's terminal module
    cannot say: a guessed directory would judge `rm -rf objects` in the wrong place."""
    import tools.terminal_tool as tt
    from tools.approval import get_current_session_key

    workdir = args.get("workdir") if isinstance(args, dict) else None
    overrides = tt.resolve_task_overrides(task_id) or {}
    default = overrides.get("cwd") or tt.get_session_cwd(task_id) or tt._get_env_config()["cwd"]
    session_key = get_current_session_key(default="") or (task_id or "")
    cwd = tt._resolve_command_cwd(workdir=workdir or None, default_cwd=default, session_key=session_key)
    cwd = os.path.expanduser(cwd)
    if not os.path.isabs(cwd):
        base = default if os.path.isabs(os.path.expanduser(default)) else os.getcwd()
        cwd = os.path.normpath(os.path.join(os.path.expanduser(base), cwd))
    return cwd


def file_base_dir(task_id, args):
    """Where the file tools resolve a relative path: their own base directory (the session's
    record under the task id, a registered override, TERMINAL_CWD, the process directory);
    the terminal's directory where this Hermes has no such function."""
    try:
        from tools.file_tools import _resolve_base_dir
    except (ImportError, AttributeError):
        return real_cwd(task_id, {})
    return str(_resolve_base_dir(task_id or "default"))


def _truthy(value):
    return str(value or "").strip().lower() in ("1", "true", "yes", "on")


def _session_env(name):
    try:
        from gateway.session_context import get_session_env

        return get_session_env(name, "") or os.environ.get(name, "")
    except Exception:
        return os.environ.get(name, "")


def _single_query_run():
    # 0.20.x marks `hermes chat -q` runs; 0.19.0 does not, so its command line says it.
    if _truthy(_session_env("HERMES_SINGLE_QUERY_SESSION")):
        return True
    return any(a in ("-q", "--query") or a.startswith("--query=") for a in sys.argv[1:])


def person_can_answer():
    """(True, "") when Hermes's approval gate will put the question to a person; else
    (False, why). Hermes's gate approves by itself under --yolo, in cron with
    cron_mode: approve, in -q runs with single_query_mode: approve, and waits for an
    answer that never comes where nobody reads the prompt: all of those are a refusal."""
    import tools.approval as ap

    if _truthy(os.environ.get("HERMES_YOLO_MODE")) or getattr(ap, "_YOLO_MODE_FROZEN", False):
        return False, "approvals are bypassed (--yolo)"
    if ap.is_current_session_yolo_enabled():
        return False, "approvals are bypassed for this session (/yolo)"
    if _truthy(_session_env("HERMES_CRON_SESSION")):
        return False, "this is a cron job: no person is there to answer"
    if _single_query_run():
        return False, "this is a single-query (-q) run: no person is there to answer"
    if ap._is_gateway_approval_context():
        return True, ""
    if ap._is_interactive_cli() and sys.stdin is not None and sys.stdin.isatty():
        return True, ""
    return False, "no terminal and no gateway can put the question to a person"


# ---- asking toolcage


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


def run_toolcage(cfg, payload, env):
    """Runs the hook once; returns (exit code, stdout, stderr) or raises RuntimeError(cause)."""
    argv = [cfg["toolcage"], "hook", "--agent", "hermes"]
    if cfg.get("policy"):
        argv += ["--policy", cfg["policy"]]
    try:
        # Its own process group, so that a timeout kills whatever it started too.
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd="/",
            start_new_session=True,
        )
    except OSError as e:
        raise RuntimeError("cannot start " + cfg["toolcage"] + ": " + (e.strerror or str(e)))
    try:
        out, err = proc.communicate(json.dumps(payload).encode("utf-8"), timeout=cfg["timeout_seconds"])
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        raise RuntimeError(
            cfg["toolcage"] + " gave no answer within " + str(cfg["timeout_seconds"]) + " s (killed)"
        )
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    return proc.returncode, out[:MAX_ANSWER_BYTES], err[:4096]


def interpret(code, out, err):
    """toolcage's Hermes answer as a Decision. Anything it does not write is a block."""
    text = out.decode("utf-8", "replace").strip()
    detail = err.decode("utf-8", "replace").strip().replace("\n", " ")[:300]
    if code < 0:
        return Decision("block", "toolcage: hook.error: toolcage died of signal " + str(-code) + (
            " (" + detail + ")" if detail else ""))
    try:
        answer = json.loads(text) if text else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        what = "no answer" if not text else "an answer that is not a JSON object"
        return Decision("block", "toolcage: hook.error: toolcage exited " + str(code) + " with " + what + (
            " (" + detail + ")" if detail else ""))
    action = answer.get("action")
    message = answer.get("message") if isinstance(answer.get("message"), str) else ""
    if action == "block":
        return Decision("block", message or "toolcage: hook.error: blocked without a reason")
    if code != 0:
        return Decision("block", "toolcage: hook.error: toolcage exited " + str(code) + " without a block answer" + (
            " (" + detail + ")" if detail else ""))
    if answer == {}:
        return Decision("allow")
    if action == "modify" and isinstance(answer.get("args"), dict) and answer["args"]:
        return Decision("cage", message, args=answer["args"])
    if action == "approve":
        key = answer.get("rule_key") if isinstance(answer.get("rule_key"), str) else ""
        # For a command, the rewrite that runs it inside the cage once a person approves it.
        args = answer.get("args") if isinstance(answer.get("args"), dict) and answer.get("args") else None
        return Decision("ask", message or "toolcage: a person must approve this call", args=args,
                        rule_key=key or "toolcage")
    return Decision("block", "toolcage: hook.error: an answer toolcage does not write: " + text[:200])


def ask_toolcage(cfg, tool_name, args, task_id, session_id):
    home = hermes_home(cfg)
    payload = {
        "hook_event_name": "pre_tool_call",
        "tool_name": tool_name,
        "tool_input": args if isinstance(args, dict) else {},
        "session_id": session_id or task_id or "",
        # The session's directory; toolcage joins a terminal call's own `workdir` to it, as the
        # terminal's `cd` does.
        "cwd": file_base_dir(task_id, args) if tool_name in FILE_TOOLS else real_cwd(task_id, {}),
        "extra": {"source": "toolcage hermes plugin", "task_id": task_id or ""},
    }
    env = dict(os.environ)
    env["HERMES_HOME"] = home
    # The payload's cwd is the real one; TERMINAL_CWD is only Hermes's starting directory.
    env.pop("TERMINAL_CWD", None)
    code, out, err = run_toolcage(cfg, payload, env)
    return interpret(code, out, err)


# ---- the two callbacks


class Toolcage:
    """The plugin: reads its config.json at every call (a reinstall takes effect on the next
    call; a config that went missing blocks every call, naming why)."""

    def __init__(self, config_path=CONFIG_FILE):
        self.config_path = config_path
        self.has_middleware = False
        # The approval keys this plugin put to a person: a persisting call that reaches its
        # tool with an ask whose key is not among them was changed after the question.
        self.asked_keys = set()

    def tool_request(self, tool_name="", args=None, task_id="", session_id="", **_):
        """tool_request middleware: a caged command, or one a person must approve, becomes
        toolcage's rewrite (so an approved command runs caged too). Deny and the question to
        a person are left to pre_tool_call, which sees the call as it will run."""
        try:
            if tool_name not in REWRITTEN_TOOLS or not isinstance(args, dict):
                return None
            d = ask_toolcage(load_config(self.config_path), tool_name, args, task_id, session_id)
            if d.kind not in ("cage", "ask") or not d.args:
                return None
            new_args = dict(args)
            new_args.update(d.args)
            return {"args": new_args, "source": _TAG, "reason": d.message or "runs inside toolcage's cage"}
        except Exception:
            # pre_tool_call judges the unchanged call and blocks it.
            return None

    def pre_tool_call(self, tool_name="", args=None, task_id="", session_id="", **_):
        try:
            if not isinstance(tool_name, str) or not tool_name:
                return _block("hook.error: a tool call without a tool name; refused")
            try:
                cfg = load_config(self.config_path)
            except ValueError as e:
                return _block("hook.error: the toolcage plugin is not configured: " + str(e))
            d = ask_toolcage(cfg, tool_name, args, task_id, session_id)
            if d.kind == "allow":
                return None
            if d.kind == "block":
                return {"action": "block", "message": d.message}
            if d.kind == "cage":
                how = (
                    "another plugin changed the arguments after toolcage's tool_request middleware"
                    if self.has_middleware
                    else "this Hermes has no tool_request middleware to rewrite it"
                )
                return _block(
                    "hook.cage-not-applied: this call must run inside toolcage's cage, but the "
                    "rewrite did not take (" + how + "); refused"
                )
            can, why = person_can_answer()
            if not can:
                return _block(
                    "a person must approve this call, and none can: " + why + "; refused. (" + d.message + ")"
                )
            self.asked_keys.add(d.rule_key)
            return {
                "action": "approve",
                "message": "toolcage (not Hermes's own check) asks you to approve this call. " + d.message,
                "rule_key": d.rule_key,
            }
        except Exception as e:
            return _block("hook.error: the toolcage plugin failed (" + type(e).__name__ + ": " + str(e) + "); refused")


    def tool_execution(self, tool_name="", args=None, next_call=None, task_id="", session_id="", **_):
        """tool_execution middleware: a file write is judged once more, as late as Hermes
        allows, and refused when toolcage now blocks it (a path that became a symlink out of
        the workspace since pre_tool_call). An approved ask stays approved."""
        if tool_name not in WRITING_TOOLS and tool_name not in PERSISTING_TOOLS:
            return next_call(args)
        try:
            d = ask_toolcage(load_config(self.config_path), tool_name, args, task_id, session_id)
            refusal = d.message if d.kind == "block" else ""
            if tool_name in PERSISTING_TOOLS and d.kind == "ask" and d.rule_key not in self.asked_keys:
                refusal = ("toolcage: this entry is not the one a person was asked about (another plugin "
                           "changed it after the question); refused")
        except Exception as e:
            refusal = "toolcage: hook.error: the toolcage plugin failed (" + type(e).__name__ + ": " + str(e) + "); refused"
        if refusal:
            return json.dumps({"error": refusal + " (judged again just before the write)"})
        return next_call(args)

    def end_session(self, session_id="", task_id="", **_):
        """on_session_finalize / on_session_reset (and the process's exit): the caged background
        processes this session started are killed, so no caged loop outlives its session."""
        try:
            binary = load_config(self.config_path)["toolcage"]
        except Exception:
            binary = ""
        kill_caged_background(binary, {i for i in (session_id, task_id) if i})


def kill_caged_background(binary, ids):
    """Kills the background processes of Hermes's process registry that run in toolcage's cage
    (their command is toolcage's rewrite, naming `binary`), those of the sessions or tasks in
    `ids`, or all of them when `ids` is empty. Returns how many it killed."""
    if not binary:
        return 0
    try:
        from tools.process_registry import process_registry as reg
    except Exception:
        return 0
    killed = 0
    try:
        with reg._lock:
            running = [s for s in reg._running.values() if not getattr(s, "exited", False)]
        for s in running:
            if binary not in (getattr(s, "command", "") or ""):
                continue
            owners = {getattr(s, "task_id", "") or "", getattr(s, "session_key", "") or ""}
            if ids and not (ids & owners):
                continue
            try:
                reg.kill_process(s.id, source="toolcage session end", consume_output=False)
            except TypeError:  # a registry without those keywords
                reg.kill_process(s.id)
            killed += 1
    except Exception:
        pass
    return killed


def register(ctx):
    plugin = Toolcage()
    # pre_tool_call first: without it nothing could block, so it must be in place even when
    # the middleware cannot be registered (then a caged command is refused instead).
    ctx.register_hook("pre_tool_call", plugin.pre_tool_call)
    try:
        ctx.register_middleware("tool_request", plugin.tool_request)
        plugin.has_middleware = True
    except Exception:
        plugin.has_middleware = False
    try:
        ctx.register_middleware("tool_execution", plugin.tool_execution)
    except Exception:
        pass
    for hook in ("on_session_finalize", "on_session_reset"):
        try:
            ctx.register_hook(hook, plugin.end_session)
        except Exception:
            pass
    # A -q run or a killed terminal may end without either hook: the process's exit ends them.
    atexit.register(plugin.end_session)
