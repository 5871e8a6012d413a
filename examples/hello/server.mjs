#!/usr/bin/env node
// The sample app for `thaw up`: waits STARTUP_DELAY_MS before it listens (a slow cold start), then answers
// every request with its pod name, so you can watch requests spread over pods as Thaw scales up. Two
// long-lived answers show streams going through Thaw (streams.mjs): GET /sse?n=&gapMs= (server-sent
// events) and a websocket echo (any path with `Upgrade: websocket`).
// Env: PORT (default 8080), STARTUP_DELAY_MS (default 800), WORK_MS (time spent per request, default 0),
// SERVING_POD / HOSTNAME (the name it reports).
import { createServer } from "node:http";
import { acceptWebsocket, serveEvents } from "./streams.mjs";

function intFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`hello: ${name} must be a whole number >= 0, got ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return n;
}

const port = intFromEnv("PORT", 8080);
const startupDelayMs = intFromEnv("STARTUP_DELAY_MS", 800);
const workMs = intFromEnv("WORK_MS", 0);
const pod = process.env.SERVING_POD || process.env.HOSTNAME || `hello-${process.pid}`;
const startedAt = Date.now();

const server = createServer((req, res) => {
  if (req.url === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  const url = new URL(req.url ?? "/", "http://hello");
  if (url.pathname === "/sse") {
    serveEvents(url, res, pod);
    return;
  }
  const reply = () =>
    res
      .writeHead(200, { "content-type": "text/plain" })
      .end(`hello from ${pod} (up ${Date.now() - startedAt} ms)\n`);
  if (workMs > 0) setTimeout(reply, workMs);
  else reply();
});

server.on("upgrade", (req, socket) => acceptWebsocket(req, socket, pod));

// The first request costs this process more than any later one (Node compiles its HTTP server path then):
// one line says when its connection came and when its answer went, by this process's clock, so a
// benchmark can tell that part of the app's start-up from the time a proxy took to send it
// (tools/real-cluster's cold-start split).
const acceptedAt = new WeakMap();
const noteAccept = (socket) => acceptedAt.set(socket, Date.now() - startedAt);
server.on("connection", noteAccept);
server.prependOnceListener("request", (req, res) => {
  server.off("connection", noteAccept);
  const accepted = acceptedAt.get(req.socket);
  res.once("finish", () =>
    console.log(
      `hello: first request answered after ${Date.now() - startedAt} ms (its connection accepted after ${accepted} ms)`,
    ),
  );
});

// Streams in flight (an SSE response, a websocket) keep the server open until they end.
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGINT", () => server.close(() => process.exit(0)));

setTimeout(() => {
  server.listen(port, "127.0.0.1", () =>
    console.log(`hello: ${pod} listening on 127.0.0.1:${port} after ${Date.now() - startedAt} ms`),
  );
}, startupDelayMs);
