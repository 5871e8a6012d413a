#!/usr/bin/env node
// The app of the overload tests: waits STARTUP_DELAY_MS before it listens (a cold start), spends WORK_MS on
// every request, and answers JSON saying which process took it, its arrival number there, and when it
// arrived (epoch ms with sub-ms precision, comparable across processes on one machine), so a test can check
// the order requests reached the app in. Env: PORT, STARTUP_DELAY_MS (default 500), WORK_MS (default 30),
// START_GATE_FILE (optional: after the delay, listen only once this file exists, so a test decides when the
// cold start ends, e.g. once its whole burst is held, whatever the machine's load).
import { existsSync } from "node:fs";
import { createServer } from "node:http";

/** @param {string} name @param {number} fallback */
const num = (name, fallback) => {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`overload-app: ${name} must be a number >= 0, got ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return n;
};
const port = num("PORT", 8080);
const workMs = num("WORK_MS", 30);
let seq = 0;
let inFlight = 0;
let maxInFlight = 0;

const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const mine = seq++;
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const seen = maxInFlight;
  setTimeout(() => {
    inFlight--;
    const body = JSON.stringify({ pid: process.pid, seq: mine, at, url: req.url, maxInFlight: seen });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }, workMs);
});
server.keepAliveTimeout = 60_000;
process.on("SIGTERM", () => server.close(() => process.exit(0)));
const gate = process.env.START_GATE_FILE;
const listenWhenOpen = () => {
  if (gate && !existsSync(gate)) setTimeout(listenWhenOpen, 10);
  else server.listen(port, "127.0.0.1");
};
setTimeout(listenWhenOpen, num("STARTUP_DELAY_MS", 500));
