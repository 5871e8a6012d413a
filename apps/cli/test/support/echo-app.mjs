#!/usr/bin/env node
// Test app for apps/cli's tests: answers every request with what it received (method, path, headers, body)
// as JSON, and echoes every websocket message back. Env: PORT, STARTUP_DELAY_MS (default 0), SERVING_POD or
// HOSTNAME (the name it reports), READY_FLAP_MS (set: /healthz alternates 200 and 503 every that many ms).
// `?sleep=ms` delays an answer; `?arrived=<file>` appends `<pod> <method> <url>` to that file as the request
// arrives (a gate for tests that act while requests are at the app); `?size=1` answers only the body's size
// (`{pod, size}`), for tests that send large bodies. `GET /close-listener` stops accepting
// connections while the process stays up, so tests can make a live pod whose app refuses connections.
// An upgrade request with `?refuse=<status>` is answered that status (JSON of the request, as for any request)
// instead of 101; every other websocket upgrade is accepted.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const port = Number(process.env.PORT ?? 8080);
const delay = Number(process.env.STARTUP_DELAY_MS ?? 0);
const pod = process.env.SERVING_POD || process.env.HOSTNAME || `echo-${process.pid}`;
const flap = Number(process.env.READY_FLAP_MS ?? 0);
const started = Date.now();
/** Ready unless flapping and in an odd period. */
const ready = () => flap <= 0 || Math.floor((Date.now() - started) / flap) % 2 === 0;

const server = createServer((req, res) => {
  const chunks = [];
  const arrived = new URL(req.url, "http://x").searchParams.get("arrived");
  if (arrived) appendFileSync(arrived, `${pod} ${req.method} ${req.url}\n`);
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/healthz") {
      if (ready()) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      else res.writeHead(503, { "content-type": "text/plain" }).end("not ready");
      return;
    }
    if (req.url.startsWith("/close-listener")) {
      // Refuse connections for `reopen` ms (forever without it) while the process stays up.
      const reopen = Number(new URL(req.url, "http://x").searchParams.get("reopen") ?? 0);
      res.writeHead(200, { "content-type": "text/plain", connection: "close" }).end("closing");
      server.close();
      server.closeIdleConnections();
      if (reopen > 0) setTimeout(() => server.listen(port, "127.0.0.1"), reopen);
      return;
    }
    const params = new URL(req.url, "http://x").searchParams;
    if (params.get("size") === "1") {
      const size = chunks.reduce((n, c) => n + c.length, 0);
      setTimeout(() => res.end(JSON.stringify({ pod, size })), Number(params.get("sleep") ?? 0));
      return;
    }
    const body = Buffer.concat(chunks).toString("utf8");
    const sleep = Number(new URL(req.url, "http://x").searchParams.get("sleep") ?? 0);
    setTimeout(() => reply(req, res, body), sleep);
  });
});
function reply(req, res, body) {
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ pod, method: req.method, url: req.url, headers: req.headers, body }));
}
const wss = new WebSocketServer({ noServer: true });
server.on("upgrade", (req, socket, head) => {
  const refuse = Number(new URL(req.url, "http://x").searchParams.get("refuse") ?? 0);
  if (refuse > 0) {
    const body = JSON.stringify({ pod, method: req.method, url: req.url, headers: req.headers, body: "" });
    socket.end(
      `HTTP/1.1 ${refuse} Refused\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
});
wss.on("connection", (ws, req) => {
  ws.send(`hello from ${pod} ${req.url}`);
  ws.on("message", (data, binary) => ws.send(binary ? data : `echo ${data}`));
});

process.on("SIGTERM", () => {
  for (const c of wss.clients) c.terminate();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

setTimeout(() => server.listen(port, "127.0.0.1"), delay);
