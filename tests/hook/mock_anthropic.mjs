// A loopback stand-in for the Anthropic Messages API, enough for Claude Code in -p mode: the
// main loop (a request offering the Bash tool) gets one Bash tool_use with MOCK_COMMAND (or,
// with MOCK_COMMANDS, a JSON list, one per turn: the next after each tool_result), and once
// every command has its tool_result, a closing text. Every request body is appended to the log.
// Usage: node mock_anthropic.mjs PORT_FILE LOG_FILE   (command in $MOCK_COMMAND)
import http from "node:http";
import fs from "node:fs";

const [portFile, logFile] = process.argv.slice(2);
const commands = process.env.MOCK_COMMANDS ? JSON.parse(process.env.MOCK_COMMANDS)
                                           : [process.env.MOCK_COMMAND ?? "true"];
let ids = 0;

function lastUserHasToolResult(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const last = msgs[msgs.length - 1];
  return !!last && last.role === "user" && Array.isArray(last.content) &&
    last.content.some((b) => b && b.type === "tool_result");
}

function toolResults(body) {
  let n = 0;
  for (const m of Array.isArray(body.messages) ? body.messages : [])
    if (m && m.role === "user" && Array.isArray(m.content))
      n += m.content.filter((b) => b && b.type === "tool_result").length;
  return n;
}

function reply(body) {
  const offersBash = Array.isArray(body.tools) && body.tools.some((t) => t && t.name === "Bash");
  const done = toolResults(body);
  if (offersBash && (done < commands.length) && (done > 0 || !lastUserHasToolResult(body))) {
    return [{ type: "tool_use", id: `toolu_mock_${++ids}`, name: "Bash",
              input: { command: commands[done], description: "Run the requested command" } }];
  }
  return [{ type: "text", text: offersBash ? "Finished." : "ok" }];
}

function sse(res, model, content) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const stop = content.some((c) => c.type === "tool_use") ? "tool_use" : "end_turn";
  send("message_start", { message: { id: `msg_mock_${++ids}`, type: "message", role: "assistant", model,
                                     content: [], stop_reason: null, stop_sequence: null,
                                     usage: { input_tokens: 12, output_tokens: 1 } } });
  content.forEach((c, index) => {
    if (c.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: c.text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(c.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
  send("message_stop", {});
  res.end();
}

const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => (raw += d));
  req.on("end", () => {
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { unparsed: raw.slice(0, 200) };
    }
    fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, body }) + "\n");
    const url = req.url ?? "";
    if (req.method === "POST" && url.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 12 }));
      return;
    }
    if (req.method === "POST" && url.startsWith("/v1/messages")) {
      const model = body.model ?? "claude-mock";
      const content = reply(body);
      if (body.stream) return sse(res, model, content);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: `msg_mock_${++ids}`, type: "message", role: "assistant", model, content,
                               stop_reason: content.some((c) => c.type === "tool_use") ? "tool_use" : "end_turn",
                               stop_sequence: null, usage: { input_tokens: 12, output_tokens: 20 } }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "mock: no such endpoint" } }));
  });
});

server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
