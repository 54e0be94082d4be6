// A loopback HTTP listener that answers "reached" and logs each request line, so a test can
// show that a caged step never got through to it.
// Usage: node listener.mjs PORT_FILE LOG_FILE
import http from "node:http";
import fs from "node:fs";

const [portFile, logFile] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  fs.appendFileSync(logFile, `${req.method} ${req.url}\n`);
  res.end("reached\n");
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
