// A plain loopback CONNECT forwarder, the stand-in for a site's outbound proxy when the machine's
// resolver maps a registry to an address the relay never dials itself (the relay then reaches the
// registry through it, in its upstream mode, after its own allowlist check). It logs every
// target it is asked for, one per line, so a test can show what the relay let through.
// Usage: node connect_forwarder.mjs PORT_FILE LOG_FILE
import http from "node:http";
import net from "node:net";
import fs from "node:fs";

const [portFile, logFile] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  res.writeHead(405);
  res.end();
});
server.on("connect", (req, client, head) => {
  fs.appendFileSync(logFile, req.url + "\n");
  const i = req.url.lastIndexOf(":");
  const far = net.connect(Number(req.url.slice(i + 1)), req.url.slice(0, i), () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) far.write(head);
    far.pipe(client);
    client.pipe(far);
  });
  const close = () => { far.destroy(); client.destroy(); };
  far.on("error", () => { client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"); close(); });
  client.on("error", close);
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
