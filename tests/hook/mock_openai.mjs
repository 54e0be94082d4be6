// A loopback stand-in for OpenAI's chat completions API, enough for an agent's main loop (OpenClaw
// with a provider of api "openai-completions"): a request offering tools gets one scripted tool
// call, the next after each tool result (MOCK_CALLS, a JSON list of {name, arguments}), and once
// every call has its result, a closing text. A request without tools (a title, a summary) gets
// plain text. Every request body is appended to the log, one JSON line each.
// Usage: node mock_openai.mjs PORT_FILE LOG_FILE   (the calls in $MOCK_CALLS)
import http from "node:http";
import fs from "node:fs";

const [portFile, logFile] = process.argv.slice(2);
const calls = JSON.parse(process.env.MOCK_CALLS ?? "[]");
let ids = 0;

const toolNames = (body) =>
  new Set((Array.isArray(body.tools) ? body.tools : []).map((t) => t?.function?.name ?? t?.name));

// The turn's place in the script: how many tool results the conversation holds already.
const toolResults = (body) =>
  (Array.isArray(body.messages) ? body.messages : []).filter((m) => m && m.role === "tool").length;

// The assistant message for this request: { content, tool_calls? }.
function reply(body) {
  const done = toolResults(body);
  const offered = toolNames(body);
  const next = calls[done];
  if (next && offered.has(next.name)) {
    return { content: null, tool_calls: [{ id: `call_mock_${++ids}`, type: "function",
      function: { name: next.name, arguments: JSON.stringify(next.arguments) } }] };
  }
  if (next && offered.size > 0) {
    // The agent does not offer the tool the script needs: say so where the test can read it.
    return { content: `mock: no tool named ${next.name} among ${[...offered].sort().join(", ")}` };
  }
  return { content: offered.size > 0 ? "Finished." : "ok" };
}

const usage = { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 };

function sse(res, model, message) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const id = `chatcmpl-mock-${++ids}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`);
  const delta = { role: "assistant" };
  if (message.tool_calls) delta.tool_calls = message.tool_calls.map((c, index) => ({ index, ...c }));
  else delta.content = message.content;
  chunk([{ index: 0, delta, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: message.tool_calls ? "tool_calls" : "stop" }]);
  chunk([], { usage });
  res.write("data: [DONE]\n\n");
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
    if (req.method === "GET" && url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "mock", object: "model", owned_by: "toolcage" }] }));
      return;
    }
    if (req.method === "POST" && url.endsWith("/chat/completions")) {
      const model = body.model ?? "mock";
      const message = reply(body);
      if (body.stream) return sse(res, model, message);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: `chatcmpl-mock-${++ids}`, object: "chat.completion",
        created: Math.floor(Date.now() / 1000), model, usage,
        choices: [{ index: 0, message: { role: "assistant", ...message },
                    finish_reason: message.tool_calls ? "tool_calls" : "stop" }] }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "invalid_request_error", message: "mock: no such endpoint" } }));
  });
});

server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
