#!/usr/bin/env node
// Test app for the scale-down (drain) tests: a long request, an SSE stream and a websocket, each of a length
// the client picks, and a line per arrival in DRAIN_LOG, so a test counts at the pod which requests reached
// it (a pod that is gone can no longer be asked). Env: PORT, SERVING_POD or HOSTNAME (the name it reports), DRAIN_LOG,
// DRAIN_IGNORE_SIGNAL (a signal logged and ignored).
//   GET /slow?ms=N&bytes=B&id=X  answers B bytes (default 65536) of "x" after N ms, with Content-Length;
//   GET /sse?n=N&every=ms&id=X   `event: hello` with the pod's name, then N `data: <i>` events, then `event: end`;
//   websocket on any path         sends `hello <pod>`, then echoes each message as `echo <message>`;
//   anything else                 JSON `{ pod, url }`.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const port = Number(process.env.PORT ?? 8080);
const pod = process.env.SERVING_POD || process.env.HOSTNAME || `drain-${process.pid}`;
const logFile = process.env.DRAIN_LOG;

/** One JSON line per arrival: which pod, which request (`id` from the query), what kind, when. */
function arrived(kind, url) {
  if (!logFile) return;
  const id = new URL(url, "http://x").searchParams.get("id") ?? "";
  appendFileSync(logFile, `${JSON.stringify({ pod, pid: process.pid, kind, id, url, at: Date.now() })}\n`);
}

const server = createServer((req, res) => {
  const u = new URL(req.url ?? "/", "http://x");
  if (u.pathname === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  arrived(u.pathname === "/slow" || u.pathname === "/sse" ? u.pathname.slice(1) : "plain", req.url);
  if (u.pathname === "/slow") {
    const bytes = Number(u.searchParams.get("bytes") ?? 65536);
    setTimeout(
      () => {
        res.writeHead(200, { "content-type": "text/plain", "content-length": bytes, "x-pod": pod });
        res.end("x".repeat(bytes));
      },
      Number(u.searchParams.get("ms") ?? 0),
    );
    return;
  }
  if (u.pathname === "/sse") {
    const n = Number(u.searchParams.get("n") ?? 10);
    const every = Number(u.searchParams.get("every") ?? 100);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(`event: hello\ndata: ${pod}\n\n`);
    let i = 0;
    const timer = setInterval(() => {
      if (i < n) {
        res.write(`data: ${i++}\n\n`);
        return;
      }
      clearInterval(timer);
      res.end("event: end\ndata: done\n\n");
    }, every);
    res.on("close", () => clearInterval(timer));
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ pod, url: req.url }));
});
const wss = new WebSocketServer({ server });
wss.on("connection", (ws, req) => {
  arrived("ws", req.url ?? "/");
  ws.send(`hello ${pod}`);
  ws.on("message", (data) => ws.send(`echo ${data}`));
});
server.keepAliveTimeout = 60_000;
// A container's own stop signal (DRAIN_IGNORE_SIGNAL, e.g. SIGINT): its arrival is logged and it is ignored,
// so the engine's stop timeout ends the app (containers-drain.test.ts tells both apart).
const ignored = process.env.DRAIN_IGNORE_SIGNAL;
if (ignored) process.on(ignored, () => arrived("signal", `/?id=${ignored}`));
// The pod stops the app only after its queue-proxy drained: whatever is left is cut.
process.on("SIGTERM", () => {
  for (const c of wss.clients) c.terminate();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
server.listen(port, "127.0.0.1");
