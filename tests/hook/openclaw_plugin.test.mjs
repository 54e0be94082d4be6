// The OpenClaw plugin against the real toolcage binary (and a few stand-ins for a broken one).
// Run: TOOLCAGE_BIN=build/toolcage TOOLCAGE_SOURCE_DIR=. node --test tests/hook/openclaw_plugin.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";

const BIN = process.env.TOOLCAGE_BIN;
const SRC = process.env.TOOLCAGE_SOURCE_DIR;
assert.ok(BIN && SRC, "set TOOLCAGE_BIN and TOOLCAGE_SOURCE_DIR");
const PLUGIN_DIR = path.join(SRC, "plugins/openclaw");
const plugin = await import(path.join(PLUGIN_DIR, "index.js"));

let root, ws, handler;

// The start of toolcage's rewrite: its binary, the policy, a fresh step id (16 of 0-9 a-f) and
// the workdir, each as the hook writes it.
function runPrefix(bin, policy, workdir) {
  const quote = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${quote(`'${bin}' run --policy '${policy}'`)} --step-id [0-9a-f]{16} ${quote(`--workdir '${workdir}'`)}`);
}

function script(name, body) {
  const p = path.join(root, name);
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

before(() => {
  // In the build tree when the suite runs (TOOLCAGE_TEST_DIR), else the temp directory.
  const parent = process.env.TOOLCAGE_TEST_DIR || os.tmpdir();
  fs.mkdirSync(parent, { recursive: true });
  root = fs.realpathSync(fs.mkdtempSync(path.join(parent, "toolcage-openclaw-")));
  ws = path.join(root, "workspace");
  fs.mkdirSync(path.join(ws, ".git"), { recursive: true });
  process.env.HOME = path.join(root, "home");
  fs.mkdirSync(process.env.HOME);
  process.env.TOOLCAGE_LOG = path.join(root, "decisions.jsonl");
  // The binary comes from the plugin's config, as `toolcage install openclaw` writes it.
  delete process.env.TOOLCAGE_BIN;
  handler = register({ bin: BIN });
});

// The plugin registered as OpenClaw registers it, with `pluginConfig` from
// plugins.entries.toolcage.config; its before_tool_call handler.
function register(pluginConfig, errors = []) {
  const hooks = [];
  const api = {
    config: { agents: { defaults: { workspace: ws } } },
    pluginConfig,
    logger: { error: (m) => errors.push(m), warn: () => {}, info: () => {} },
    on: (name, h, opts) => hooks.push({ name, h, opts }),
  };
  plugin.default.register(api);
  assert.equal(hooks.length, 1);
  assert.equal(hooks[0].name, "before_tool_call");
  return hooks[0].h;
}

after(() => fs.rmSync(root, { recursive: true, force: true }));

const ctx = { agentId: "main", sessionId: "s-1", sessionKey: "agent:main:main", toolName: "exec" };

test("package.json and the manifest are what OpenClaw loads", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PLUGIN_DIR, "package.json"), "utf8"));
  assert.equal(pkg.type, "module");
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
  const manifest = JSON.parse(fs.readFileSync(path.join(PLUGIN_DIR, "openclaw.plugin.json"), "utf8"));
  assert.equal(manifest.id, "toolcage");
  assert.equal(manifest.id, plugin.default.id);
  assert.equal(manifest.configSchema.type, "object");
  assert.equal(manifest.configSchema.additionalProperties, false);
  assert.deepEqual(Object.keys(manifest.configSchema.properties).sort(), ["bin", "policy"]);
});

test("a read-only exec is rewritten to run in the read-only cage, shell builtins too; a cd into toolcage's words", async () => {
  const r = await handler({ toolName: "exec", params: { command: "ls -la", timeout: 5 } }, ctx);
  assert.ok(r && r.params, JSON.stringify(r));
  assert.equal(r.params.timeout, 5);
  assert.match(r.params.command, runPrefix(BIN, "default", ws), r.params.command);
  assert.ok(r.params.command.includes(" --read-only -- /bin/bash -c 'ls -la'"), r.params.command);
  const pwd = await handler({ toolName: "exec", params: { command: "pwd" } }, ctx);
  assert.ok(pwd.params.command.endsWith(" --read-only -- /bin/bash -c 'pwd'"), pwd.params.command);
  const cd = await handler({ toolName: "exec", params: { command: "cd sub" } }, ctx);
  assert.equal(cd.params.command, "builtin cd './sub'");
});

test("a risky exec is rewritten to run in the cage, other params kept", async () => {
  const params = { command: "npm install && echo \"it's done\"", timeout: 30, background: false };
  const r = await handler({ toolName: "exec", params }, ctx);
  assert.ok(r && r.params, JSON.stringify(r));
  assert.equal(r.params.timeout, 30);
  assert.equal(r.params.background, false);
  assert.match(r.params.command, runPrefix(BIN, "default", ws), r.params.command);
  // bash reads the rewrite back to exactly the original command
  const fake = script("fake-toolcage", 'eval "last=\\${$#}"; printf %s "$last"');
  const rewritten = r.params.command.replace(`'${BIN}'`, `'${fake}'`);
  assert.equal(execFileSync("/bin/bash", ["-c", rewritten]).toString(), params.command);
  assert.equal(params.command, "npm install && echo \"it's done\"", "the event's params are not mutated");
});

test("a destructive exec is blocked with toolcage's reason", async () => {
  const r = await handler({ toolName: "exec", params: { command: "rm -rf ~" } }, ctx);
  assert.equal(r.block, true);
  assert.match(r.blockReason, /^toolcage: /);
});

test("file writes are judged by their target, SOUL.md is protected", async () => {
  assert.equal(await handler({ toolName: "write", params: { path: "notes.md", content: "x" } }, ctx), undefined);
  const outside = await handler({ toolName: "write", params: { path: "/etc/passwd", content: "x" } }, ctx);
  assert.equal(outside.block, true);
  const soul = await handler({ toolName: "edit", params: { path: path.join(ws, "SOUL.md"), oldText: "a", newText: "b" } }, ctx);
  assert.equal(soul.block, true);
  assert.match(soul.blockReason, /self\.protected/);
  const patch = await handler(
    { toolName: "apply_patch", params: { input: "*** Begin Patch\n*** Add File: ../../../../../../../../../../../../../../../../etc/x\n+y\n*** End Patch\n" } },
    ctx,
  );
  assert.equal(patch.block, true);
});

test("reads are judged as the agent resolves them: links, @ references and file:// URLs to credentials are blocked", async () => {
  const home = process.env.HOME;
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_ed25519"), "key");
  fs.writeFileSync(path.join(ws, "README.md"), "hi");
  fs.symlinkSync(path.join(home, ".ssh"), path.join(ws, "keys"));
  try {
    for (const [tool, params] of [
      ["read", { path: path.join(home, ".ssh", "id_ed25519") }],
      ["read", { path: "keys/id_ed25519" }],
      ["read", { path: "@" + path.join(home, ".ssh", "id_ed25519") }],
      ["read", { path: "file://" + path.join(home, ".ssh", "id_ed25519") }],
      ["read", { path: "file://" + path.join(home, ".ssh", "id%5Fed25519") }],
      ["grep", { pattern: "BEGIN", path: "keys" }],
      ["find", { pattern: "../home/.ssh/*" }],
    ]) {
      const r = await handler({ toolName: tool, params }, ctx);
      assert.equal(r?.block, true, `${tool} ${JSON.stringify(params)} was not blocked`);
    }
    // Everyday reads in the workspace pass untouched.
    assert.equal(await handler({ toolName: "read", params: { path: "README.md" } }, ctx), undefined);
    assert.equal(await handler({ toolName: "grep", params: { pattern: "hi" } }, ctx), undefined);
    assert.equal(await handler({ toolName: "find", params: { pattern: "**/*.md" } }, ctx), undefined);
    assert.equal(await handler({ toolName: "ls", params: {} }, ctx), undefined);
  } finally {
    fs.unlinkSync(path.join(ws, "keys"));
    fs.unlinkSync(path.join(ws, "README.md"));
  }
});

test("the workspace's SOUL.md chooses the policy", async () => {
  fs.writeFileSync(path.join(ws, "SOUL.md"), "---\ntoolcage: strict\n---\n");
  try {
    const r = await handler({ toolName: "exec", params: { command: "npm install" } }, ctx);
    assert.equal(r.block, true);
  } finally {
    fs.rmSync(path.join(ws, "SOUL.md"));
  }
});

test("tools the plugin does not watch are not sent to the hook", async () => {
  const h = plugin.createHandler({ bin: "/nonexistent/toolcage", workspace: () => ws });
  assert.equal(await h({ toolName: "web_search", params: { query: "x" } }, ctx), undefined);
  assert.equal(await h({ toolName: "memory_search", params: { query: "x" } }, ctx), undefined);
});

test("ask becomes a critical approval request whose approved command runs caged", async () => {
  const bin = script("ask-toolcage", `cat >/dev/null; echo '{"decision":"ask","rule":"x.y","reason":"toolcage: x.y: why","command":"toolcage run -- echo hi"}'`);
  const h = plugin.createHandler({ bin, workspace: () => ws });
  const r = await h({ toolName: "exec", params: { command: "echo hi", timeout: 5 } }, ctx);
  assert.equal(r.requireApproval.severity, "critical");
  assert.match(r.requireApproval.title, /toolcage/);
  assert.match(r.requireApproval.description, /x\.y: why/);
  assert.match(r.requireApproval.description, /echo hi/);
  // OpenClaw runs these params once a person approves (its before_tool_call keeps params and
  // requireApproval of one handler together).
  assert.deepEqual(r.params, { command: "toolcage run -- echo hi", timeout: 5 });
});

test("an ask for a shell command without a cage to run it in is refused, not asked", async () => {
  const bin = script("ask-bare", `cat >/dev/null; echo '{"decision":"ask","rule":"x.y","reason":"toolcage: x.y: why"}'`);
  const h = plugin.createHandler({ bin, workspace: () => ws });
  const r = await h({ toolName: "exec", params: { command: "echo hi" } }, ctx);
  assert.equal(r.block, true, JSON.stringify(r));
  assert.equal(r.requireApproval, undefined);
  assert.match(r.blockReason, /no cage/);
  // a file tool's ask has nothing to rewrite: asked as it is
  const f = await h({ toolName: "write", params: { path: "a", content: "" } }, ctx);
  assert.equal(f.requireApproval.severity, "critical");
  assert.equal(f.params, undefined);
});

test("an ask from the real hook (policy named by SOUL.md) becomes an approval request", async () => {
  // An installed copy: the binary finds its policies in <prefix>/share/toolcage/profiles.
  const prefix = path.join(root, "prefix");
  const bin = path.join(prefix, "bin/toolcage");
  const profiles = path.join(prefix, "share/toolcage/profiles");
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.mkdirSync(profiles, { recursive: true });
  fs.copyFileSync(BIN, bin);
  fs.chmodSync(bin, 0o755);
  for (const f of fs.readdirSync(path.join(SRC, "profiles"))) {
    if (f.endsWith(".json")) fs.copyFileSync(path.join(SRC, "profiles", f), path.join(profiles, f));
  }
  fs.writeFileSync(path.join(profiles, "ask-test.json"), JSON.stringify({
    name: "ask-test", extends: "default",
    rules: [{ id: "test.ask-me", program: "echo", args: ["ask-me"], verdict: "ask", reason: "the test asks a person" }],
  }));
  const ws2 = path.join(root, "ws-ask");
  fs.mkdirSync(path.join(ws2, ".git"), { recursive: true });
  fs.writeFileSync(path.join(ws2, "SOUL.md"), "# Soul\n<!-- toolcage: ask-test -->\n");
  const h = plugin.createHandler({ bin, workspace: () => ws2 });
  const r = await h({ toolName: "exec", params: { command: "echo ask-me" } }, ctx);
  assert.equal(r.requireApproval.severity, "critical", JSON.stringify(r));
  assert.match(r.requireApproval.description, /test\.ask-me/);
  // approved, the command runs in toolcage's cage of this workspace
  assert.match(r.params.command, runPrefix(bin, "ask-test", ws2));
  assert.match(r.params.command, /echo ask-me/);
  assert.equal((await h({ toolName: "exec", params: { command: "cd sub" } }, ctx)).params.command, "builtin cd './sub'");
});

test("a hook that cannot run, hangs or answers garbage blocks the call", async () => {
  const cases = [
    plugin.createHandler({ bin: "/nonexistent/toolcage", workspace: () => ws }),
    plugin.createHandler({ bin: script("hang", "sleep 30"), timeoutMs: 300, workspace: () => ws }),
    plugin.createHandler({ bin: script("hangchild", "sleep 30 & wait"), timeoutMs: 300, workspace: () => ws }),
    plugin.createHandler({ bin: script("garbage", "cat >/dev/null; echo not json"), workspace: () => ws }),
    plugin.createHandler({ bin: script("nodecision", "cat >/dev/null; echo '{}'"), workspace: () => ws }),
    plugin.createHandler({ bin: script("badexit", `cat >/dev/null; echo '{"decision":"allow"}'; exit 1`), workspace: () => ws }),
    plugin.createHandler({ bin: script("weird", `cat >/dev/null; echo '{"decision":"maybe"}'`), workspace: () => ws }),
    plugin.createHandler({ bin: script("nocmd", `cat >/dev/null; echo '{"decision":"cage"}'`), workspace: () => ws }),
    plugin.createHandler({ bin: script("crash", "kill -9 $$"), workspace: () => ws }),
  ];
  for (const h of cases) {
    const r = await h({ toolName: "exec", params: { command: "ls" } }, ctx);
    assert.equal(r?.block, true, JSON.stringify(r));
    assert.match(r.blockReason, /^toolcage: /);
  }
  // a cage answer for a file tool is not something toolcage writes
  const cageFile = plugin.createHandler({
    bin: script("cagefile", `cat >/dev/null; echo '{"decision":"cage","command":"x"}'`),
    workspace: () => ws,
  });
  assert.equal((await cageFile({ toolName: "write", params: { path: "a", content: "" } }, ctx)).block, true);
});

test("the workspace comes from the agent's config entry, then the defaults", () => {
  const home = os.homedir();
  assert.equal(plugin.workspaceFor({ config: {} }, "main"), path.join(home, ".openclaw/workspace"));
  assert.equal(plugin.workspaceFor({ config: {} }, "ops"), path.join(home, ".openclaw/workspace-ops"));
  const api = { config: { agents: { list: [{ id: "ops", workspace: "~/w/ops" }], defaults: { workspace: "/srv/ws" } } } };
  assert.equal(plugin.workspaceFor(api, "ops"), path.join(home, "w/ops"));
  assert.equal(plugin.workspaceFor(api, "main"), "/srv/ws");
  const viaRuntime = { config: {}, runtime: { agent: { resolveAgentWorkspaceDir: () => "/r/ws" } } };
  assert.equal(plugin.workspaceFor(viaRuntime, "x"), "/r/ws");
});

test("the binary comes from the plugin's config, else an absolute $TOOLCAGE_BIN, never PATH", () => {
  const s = plugin.toolcageSettings;
  assert.deepEqual(s({ bin: "/opt/t/toolcage", policy: "forge" }, { TOOLCAGE_BIN: "/x/toolcage" }),
    { bin: "/opt/t/toolcage", policy: "forge" });
  assert.deepEqual(s(undefined, { TOOLCAGE_BIN: "/x/toolcage" }), { bin: "/x/toolcage", policy: undefined });
  assert.match(s(undefined, {}).error, /toolcage install openclaw/);
  assert.match(s({}, { PATH: "/usr/bin" }).error, /does not know where toolcage is installed/);
  assert.match(s(undefined, { TOOLCAGE_BIN: "toolcage" }).error, /\$TOOLCAGE_BIN .* not an absolute path/);
  assert.match(s({ bin: "bin/toolcage" }, {}).error, /config\.bin .* not an absolute path/);
  assert.match(s({ bin: 42 }, { TOOLCAGE_BIN: "/x/toolcage" }).error, /not an absolute path/);
  assert.match(s({ bin: "/opt/t/toolcage", policy: "../etc/x" }, {}).error, /not a policy name/);
});

test("without a configured binary every watched call is refused, even with a toolcage on PATH", async () => {
  // A `toolcage` first on the gateway's PATH that would allow everything.
  const dir = path.join(root, "path-bin");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "toolcage"), `#!/bin/sh\ncat >/dev/null; echo '{"decision":"allow"}'\n`, { mode: 0o755 });
  const savedPath = process.env.PATH;
  process.env.PATH = `${dir}:${savedPath}`;
  try {
    const errors = [];
    const h = register(undefined, errors);
    const r = await h({ toolName: "exec", params: { command: "ls" } }, ctx);
    assert.equal(r?.block, true, JSON.stringify(r));
    assert.match(r.blockReason, /^toolcage: .*toolcage install openclaw/);
    const w = await h({ toolName: "write", params: { path: "a.txt", content: "x" } }, ctx);
    assert.equal(w?.block, true);
    assert.equal((await h({ toolName: "read", params: { path: "a.txt" } }, ctx))?.block, true);
    assert.equal(await h({ toolName: "web_search", params: { query: "x" } }, ctx), undefined);
    assert.equal(errors.length, 1);
    const bad = register({ bin: "toolcage" });
    assert.equal((await bad({ toolName: "exec", params: { command: "ls" } }, ctx))?.block, true);
  } finally {
    process.env.PATH = savedPath;
  }
});

test("the config's policy is passed to the hook", async () => {
  const strict = register({ bin: BIN, policy: "strict" });
  const r = await strict({ toolName: "exec", params: { command: "npm install" } }, ctx);
  assert.equal(r?.block, true, JSON.stringify(r));
  assert.match(r.blockReason, /^toolcage: /);
  // What strict allows runs in its read-only cage, under that policy.
  const ls = await strict({ toolName: "exec", params: { command: "ls" } }, ctx);
  assert.ok(ls?.params?.command.includes(" run --policy 'strict'") && ls.params.command.includes(" --read-only "),
            JSON.stringify(ls));
  // The same call under the default policy runs in the cage.
  const caged = await handler({ toolName: "exec", params: { command: "npm install" } }, ctx);
  assert.ok(caged?.params?.command.includes(" run --policy 'default'"), JSON.stringify(caged));
});
