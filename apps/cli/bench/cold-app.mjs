#!/usr/bin/env node
// The app of the cold-start benchmark: a plain node:http server that waits STARTUP_DELAY_MS plus a random
// 0..STARTUP_JITTER_MS (so listen() falls at a random phase of any poll) before it listens, and marks its
// own moments in wall time with sub-millisecond precision: process start (performance.timeOrigin),
// listen() returned, first accepted connection, first request. After its first answer it appends one JSON
// line {pod, start, listen, firstConn, firstReq} to COLD_APP_MARKS, so the benchmark can subtract the app's
// own start-up (listen - start) from the time to first byte and split the rest into phases.
// Env: PORT, STARTUP_DELAY_MS (default 300), STARTUP_JITTER_MS (default 100), COLD_APP_MARKS (file), HOSTNAME (the pod name thaw up gives it).
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

const now = () => performance.timeOrigin + performance.now();
const start = performance.timeOrigin;
const port = Number(process.env.PORT ?? 8080);
const delay =
  Number(process.env.STARTUP_DELAY_MS ?? 300) + Math.random() * Number(process.env.STARTUP_JITTER_MS ?? 100);
const marks = {
  pod: process.env.HOSTNAME || String(process.pid),
  start,
  listen: 0,
  firstConn: 0,
  firstReq: 0,
};
let written = false;

const server = createServer((req, res) => {
  if (marks.firstReq === 0 && req.url !== "/healthz") marks.firstReq = now();
  res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
  if (!written && marks.firstReq !== 0 && process.env.COLD_APP_MARKS) {
    written = true;
    // After the answer is on its way: the write is not part of the measured path.
    setImmediate(() => appendFileSync(process.env.COLD_APP_MARKS, `${JSON.stringify(marks)}\n`));
  }
});
server.on("connection", () => {
  if (marks.firstConn === 0) marks.firstConn = now();
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
setTimeout(() => {
  server.listen(port, "127.0.0.1", () => {
    marks.listen = now();
  });
}, delay);
