// The benchmark's user container: 200 "ok" (2 bytes) on every request, keep-alive. The worst case for a
// proxy: its own cost dominates. Usage: node backend.mjs <port>
import http from "node:http";

const port = Number(process.argv[2]);
const ok = Buffer.from("ok");
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "text/plain", "content-length": ok.length });
  res.end(ok);
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
