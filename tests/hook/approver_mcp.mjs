// A stand-in for a person at Claude Code's permission prompt: an MCP stdio server with one tool,
// `approve`, that allows every request as it was shown and logs what it was shown.
// Usage: node approver.mjs LOG_FILE
import fs from "node:fs";
import readline from "node:readline";

const logFile = process.argv[2];
const rl = readline.createInterface({ input: process.stdin });
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");

rl.on("line", (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return;
  }
  if (req.id === undefined) return; // a notification
  switch (req.method) {
    case "initialize":
      send({ id: req.id, result: { protocolVersion: req.params?.protocolVersion ?? "2024-11-05",
                                   capabilities: { tools: {} },
                                   serverInfo: { name: "approver", version: "1.0.0" } } });
      break;
    case "tools/list":
      send({ id: req.id, result: { tools: [{
        name: "approve",
        description: "Approves a tool call",
        inputSchema: { type: "object",
                       properties: { tool_name: { type: "string" }, input: { type: "object" },
                                     tool_use_id: { type: "string" } },
                       required: ["tool_name", "input"] },
      }] } });
      break;
    case "tools/call": {
      const args = req.params?.arguments ?? {};
      fs.appendFileSync(logFile, JSON.stringify(args) + "\n");
      send({ id: req.id, result: { content: [{ type: "text",
        text: JSON.stringify({ behavior: "allow", updatedInput: args.input }) }] } });
      break;
    }
    default:
      send({ id: req.id, result: {} });
  }
});
