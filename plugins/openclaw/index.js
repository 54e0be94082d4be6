// toolcage for OpenClaw: a before_tool_call handler that hands every exec, file write and read to
// `toolcage hook --agent openclaw` and turns its answer into OpenClaw's: deny blocks, cage
// rewrites the command, ask requires a person's approval (and runs the approved command caged). Anything that goes wrong on the way
// (no binary, a timeout, an answer that is not what toolcage writes) blocks the call.
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SHELL_TOOLS = new Set(["exec", "bash"]);
export const FILE_TOOLS = new Set(["write", "edit", "multi_edit", "apply_patch"]);
// Reads too: a link in the workspace may lead to the home's credentials.
export const READ_TOOLS = new Set(["read", "grep", "find", "ls"]);
export const DEFAULT_TIMEOUT_MS = 15000;
const MAX_ANSWER_BYTES = 1 << 20;
const PLUGIN_DIR = path.dirname(fileURLToPath(import.meta.url));

const POLICY_NAME = /^[A-Za-z0-9_-]+$/;
const HOW_TO_FIX =
  "run `toolcage install openclaw` (it writes the binary's absolute path into " +
  "plugins.entries.toolcage.config.bin in openclaw.json), or set TOOLCAGE_BIN to toolcage's " +
  "absolute path in the gateway's environment; then restart the gateway (`openclaw gateway restart`)";

// Where toolcage is and which policy the hook runs with: the plugin's config, as
// `toolcage install openclaw` wrote it (plugins.entries.<id>.config: bin, policy); without a
// `bin` there, an absolute $TOOLCAGE_BIN. Never a PATH lookup: whatever `toolcage` came first on
// the gateway's PATH would decide every call. { bin, policy } or { error }.
export function toolcageSettings(pluginConfig, env = process.env) {
  const config = pluginConfig && typeof pluginConfig === "object" ? pluginConfig : {};
  let bin;
  let from;
  if (config.bin !== undefined) {
    bin = config.bin;
    from = "plugins.entries.toolcage.config.bin";
  } else if (typeof env.TOOLCAGE_BIN === "string" && env.TOOLCAGE_BIN.length > 0) {
    bin = env.TOOLCAGE_BIN;
    from = "$TOOLCAGE_BIN";
  } else {
    return { error: `the plugin does not know where toolcage is installed; ${HOW_TO_FIX}` };
  }
  if (typeof bin !== "string" || !path.isAbsolute(bin)) {
    return { error: `${from} (${JSON.stringify(bin)}) is not an absolute path; ${HOW_TO_FIX}` };
  }
  const policy = config.policy;
  if (policy !== undefined && (typeof policy !== "string" || !POLICY_NAME.test(policy))) {
    return {
      error:
        `plugins.entries.toolcage.config.policy (${JSON.stringify(policy)}) is not a policy name ` +
        "(letters, digits, - and _); run `toolcage install openclaw --policy NAME` again",
    };
  }
  return { bin, policy };
}

function expandHome(p) {
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  return p;
}

// The agent's workspace, where its SOUL.md lives: OpenClaw's own resolver when the runtime
// offers it, else the agent's entry in the config, else the defaults OpenClaw documents.
export function workspaceFor(api, agentId) {
  try {
    const resolve = api?.runtime?.agent?.resolveAgentWorkspaceDir;
    if (typeof resolve === "function") {
      const dir = resolve(api.config, agentId);
      if (typeof dir === "string" && dir.length > 0) return path.resolve(expandHome(dir));
    }
  } catch {
    // fall through to the config
  }
  const agents = api?.config?.agents ?? {};
  const list = Array.isArray(agents.list) ? agents.list : [];
  const entry = list.find((a) => a && a.id === agentId) ?? agents.entries?.[agentId];
  let dir = entry?.workspace ?? agents.defaults?.workspace;
  if (typeof dir !== "string" || dir.length === 0) {
    dir = !agentId || agentId === "main" ? "~/.openclaw/workspace" : `~/.openclaw/workspace-${agentId}`;
  }
  return path.resolve(expandHome(dir));
}

// Runs the hook once: { code, stdout, stderr } or { error }.
export function runHook(bin, payload, timeoutMs, policy) {
  const args = ["hook", "--agent", "openclaw", ...(policy ? ["--policy", policy] : [])];
  return new Promise((resolve) => {
    let child;
    try {
      // Its own process group, so that a timeout kills whatever it started too.
      child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (e) {
      resolve({ error: `cannot start ${bin}: ${e.message}` });
      return;
    }
    let stdout = "";
    let stderr = "";
    let settled = false;
    const kill = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const finish = (r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      kill();
      finish({ error: `${bin} hook did not answer within ${timeoutMs} ms` });
    }, timeoutMs);
    child.on("error", (e) => finish({ error: `cannot run ${bin}: ${e.message}` }));
    child.stdout.on("data", (d) => {
      stdout += d;
      if (stdout.length > MAX_ANSWER_BYTES) {
        kill();
        finish({ error: "the answer is larger than 1 MiB" });
      }
    });
    child.stderr.on("data", (d) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.on("close", (code, signal) =>
      finish(code === null ? { error: `${bin} hook was killed by ${signal}` } : { code, stdout, stderr }),
    );
    child.stdin.on("error", () => {}); // a hook that refuses early closes its stdin
    child.stdin.end(JSON.stringify(payload));
  });
}

function block(reason) {
  return { block: true, blockReason: reason };
}

// toolcage's answer as OpenClaw's before_tool_call result. Only exactly what toolcage writes
// lets a call through; everything else blocks.
export function mapAnswer(toolName, params, result) {
  if (result.error) return block(`toolcage: the hook could not decide, so the call is refused: ${result.error}`);
  let answer;
  try {
    answer = JSON.parse(result.stdout);
  } catch {
    const why = result.stderr.trim().split("\n")[0] || `exit code ${result.code}`;
    return block(`toolcage: no readable answer from the hook, so the call is refused (${why})`);
  }
  if (!answer || typeof answer !== "object" || typeof answer.decision !== "string") {
    return block("toolcage: the hook's answer has no decision, so the call is refused");
  }
  const reason = typeof answer.reason === "string" ? answer.reason : `toolcage: ${answer.decision}`;
  if (answer.decision === "deny") return block(reason);
  if (result.code !== 0) return block(`${reason} (the hook exited with ${result.code})`);
  switch (answer.decision) {
    case "allow":
      // An allowed shell command runs in toolcage's read-only cage when the answer names one.
      if (SHELL_TOOLS.has(toolName) && typeof answer.command === "string" && answer.command.length > 0) {
        return { params: { ...params, command: answer.command } };
      }
      return undefined;
    case "cage":
      if (!SHELL_TOOLS.has(toolName) || typeof answer.command !== "string" || answer.command.length === 0) {
        return block("toolcage: a cage answer without a command to run, so the call is refused");
      }
      return { params: { ...params, command: answer.command } };
    case "ask": {
      // What a person approves is what runs: a shell command asked about comes with its cage
      // rewrite, and OpenClaw runs these params once approved. Without one, nothing to approve.
      let rewritten;
      if (SHELL_TOOLS.has(toolName)) {
        if (typeof answer.command !== "string" || answer.command.length === 0) {
          return block(`${reason} (refused, not asked: the hook named no cage to run it in)`);
        }
        rewritten = { params: { ...params, command: answer.command } };
      }
      const what = SHELL_TOOLS.has(toolName)
        ? `\n\n${String(params.command ?? "")}\n\nruns, if approved, inside toolcage's cage as:\n${answer.command}`
        : "";
      return {
        ...rewritten,
        requireApproval: {
          title: `toolcage: approve this ${toolName} call?`,
          description: `${reason}${what}`,
          severity: "critical",
          timeoutBehavior: "deny",
        },
      };
    }
    default:
      return block(`toolcage: unknown decision "${answer.decision}", so the call is refused`);
  }
}

// The before_tool_call handler; `options` lets tests choose the binary and the workspace.
// `error`: the settings could not be read, and every watched call is refused with it.
export function createHandler({ bin, policy, error, timeoutMs = DEFAULT_TIMEOUT_MS, workspace }) {
  return async (event, ctx) => {
    const toolName = event?.toolName ?? ctx?.toolName;
    if (!SHELL_TOOLS.has(toolName) && !FILE_TOOLS.has(toolName) && !READ_TOOLS.has(toolName)) return undefined;
    if (error) return block(`toolcage: the call is refused: ${error}`);
    try {
      const params = event?.params && typeof event.params === "object" ? event.params : {};
      const agentId = typeof ctx?.agentId === "string" && ctx.agentId.length > 0 ? ctx.agentId : "main";
      const payload = {
        toolName,
        params,
        agentId,
        sessionId: String(ctx?.sessionId ?? ctx?.sessionKey ?? ""),
        workspaceDir: workspace(agentId),
        pluginDir: PLUGIN_DIR,
      };
      return mapAnswer(toolName, params, await runHook(bin, payload, timeoutMs, policy));
    } catch (e) {
      return block(`toolcage: the plugin failed, so the call is refused: ${e?.message ?? e}`);
    }
  };
}

export default {
  id: "toolcage",
  name: "toolcage",
  description: "Decides every exec and file write with `toolcage hook`.",
  register(api) {
    const settings = toolcageSettings(api?.pluginConfig);
    if (settings.error) api?.logger?.error?.(`toolcage: ${settings.error}`);
    const handler = createHandler({
      ...settings,
      workspace: (agentId) => workspaceFor(api, agentId),
    });
    // Runs before other plugins' hooks: a block is final, a rewrite is what they see.
    api.on("before_tool_call", handler, { priority: 1000 });
  },
};
