// Aggressive-mode detection latency: the time from a real loopback server starting to listen until the
// prober reports ready. The prober starts first; the server (a child process, as a user container is its
// own process) starts after a random 0-200 ms delay, so the start falls at a random phase of the 50 ms poll.
// Both sides read the machine-wide monotonic clock (process.hrtime). Runs against dist/ (build first).
// Usage: node bench/detect.mjs [runs]   (at least 50 runs per scenario; default 100, THAW_BENCH_QUICK=1: 50)
import { fork } from "node:child_process";
import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { benchCommandLine } from "@thaw/bench-kit";
import { systemClock } from "@thaw/clock";
import { createProber } from "../dist/index.js";
import { nodeTransport } from "../dist/node/index.js";
import { closedPort } from "../dist/node/testing.js";

const { positionals } = benchCommandLine(import.meta.url, {
  name: "node bench/detect.mjs",
  usage: "[flags] [runs]",
  maxPositionals: 1,
  summary:
    "@thaw/readiness's aggressive-mode detection latency: from a real loopback server (a child process) starting to listen until the prober reports ready, the start at a random phase of the 50 ms poll",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 50 runs per scenario instead of 100",
    },
  ],
  more: "[runs]: runs per scenario, at least 50 (default 100; 50 with THAW_BENCH_QUICK=1). Runs against dist/ (build first).",
});

const RUNS = Math.max(50, Number(positionals[0] ?? (process.env.THAW_BENCH_QUICK ? 50 : 100)));
const POLL_MS = 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (a, b) => Number(b - a) / 1e6;

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function summary(name, samples, loopDelay) {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const over = s.filter((x) => x > 60).length;
  return {
    name,
    runs: s.length,
    p50: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    max: s.at(-1),
    mean,
    over,
    loopDelay,
  };
}

function print(r) {
  const f = (x) => x.toFixed(2).padStart(7);
  const ratio = (x) => (x / POLL_MS).toFixed(3);
  console.log(
    `${r.name.padEnd(32)} runs ${String(r.runs).padStart(3)}  p50 ${f(r.p50)} ms (${ratio(r.p50)}x poll)  ` +
      `p99 ${f(r.p99)} ms (${ratio(r.p99)}x poll)  max ${f(r.max)} ms  mean ${f(r.mean)} ms` +
      (r.loopDelay === undefined
        ? ""
        : `  runs > 60 ms: ${r.over}  event-loop delay p99 ${f(r.loopDelay.p99)} ms max ${f(r.loopDelay.max)} ms`),
  );
}

const child = fork(new URL("./server-child.mjs", import.meta.url));
const replies = [];
let waiting;
child.on("message", (m) => {
  const w = waiting;
  waiting = undefined;
  if (w) w(m);
  else replies.push(m);
});
const reply = () =>
  replies.length
    ? Promise.resolve(replies.shift())
    : new Promise((r) => {
        waiting = r;
      });
await reply(); // started

/** Records when each attempt started and ended, to explain slow runs. */
function recording(attempts) {
  const wrap =
    (fn) =>
    async (...args) => {
      const a = { start: process.hrtime.bigint(), end: 0n };
      attempts.push(a);
      try {
        return await fn(...args);
      } finally {
        a.end = process.hrtime.bigint();
      }
    };
  return { http: wrap(nodeTransport.http), tcp: wrap(nodeTransport.tcp), grpc: wrap(nodeTransport.grpc) };
}

const outliers = [];

async function detectOnce(kind) {
  const port = await closedPort();
  const probe = kind === "tcp" ? { tcpSocket: { port } } : { httpGet: { port, path: "/healthz" } };
  const attempts = [];
  const prober = createProber({ probes: [probe], transport: recording(attempts), clock: systemClock });
  let readyAt = 0n;
  const ready = prober.probe().then((ok) => {
    readyAt = process.hrtime.bigint();
    return ok;
  });
  await sleep(Math.random() * 200);
  child.send({ cmd: "listen", kind, port });
  const { listenAt } = await reply();
  const ok = await ready;
  child.send({ cmd: "close" });
  await reply();
  if (!ok) throw new Error(`${kind} prober gave up on port ${port}`);
  const t0 = BigInt(listenAt);
  const latency = ms(t0, readyAt);
  if (latency > 60) {
    const around = attempts
      .slice(-3)
      .map((a) => `${ms(t0, a.start).toFixed(1)}..${ms(t0, a.end).toFixed(1)}`);
    outliers.push(`${kind} ${latency.toFixed(1)} ms: last attempts (ms after listen) ${around.join(", ")}`);
  }
  return latency;
}

/** Baseline on the same machine and moment: how late a 50 ms timer fires (event-loop and CPU noise). */
async function timerLateness() {
  const t0 = process.hrtime.bigint();
  await sleep(POLL_MS);
  return ms(t0, process.hrtime.bigint()) - POLL_MS;
}

console.log(
  `aggressive readiness detection: ${RUNS} runs per scenario, poll interval ${POLL_MS} ms (Knative's), ` +
    `load average ${loadavg()[0].toFixed(2)} at start`,
);
const results = [];
for (const kind of ["tcp", "http"]) {
  const samples = [];
  // The prober's own event-loop delay during the runs: how much of the tail is the machine, not the poll.
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  for (let i = 0; i < RUNS; i++) samples.push(await detectOnce(kind));
  delay.disable();
  const name = `detect ${kind === "tcp" ? "TCP (default probe)" : "HTTP GET /healthz"}`;
  results.push(summary(name, samples, { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 }));
}
const lateness = [];
for (let i = 0; i < RUNS; i++) lateness.push(await timerLateness());
results.push(summary("baseline: 50 ms timer lateness", lateness));
child.send({ cmd: "exit" });
for (const r of results) print(r);
console.log(`load average ${loadavg()[0].toFixed(2)} at end`);
// A planned attempt starts every 50 ms; a gap much longer between two starts means the process was not scheduled.
for (const o of outliers) console.log(`  slow run: ${o}`);
const worst = Math.max(...results.slice(0, 2).map((r) => r.p99));
console.log(
  `target p99 < 60 ms: ${worst < 60 ? "met" : "NOT met"} (worst p99 ${worst.toFixed(2)} ms = ${(worst / POLL_MS).toFixed(3)}x the poll interval)`,
);

// What the connect retries cost while nothing listens yet (thaw-queue-proxy's THAW_PROBE_CONNECT_RETRY_MS):
// this process's CPU per second of polling a closed port in the first second and in seconds 1-5, per cap
// (0 = Knative's 50 ms plan; 50 = thaw-queue-proxy's default, the pause then grows 1 ms per 400 ms refused).
// The detection it buys is measured end to end by apps/cli's cold-start bench.
const port = await closedPort();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** This process's CPU (ms) while a prober polls the closed port for `seconds`: in the first second, and per second after it. */
async function cpuWhilePolling(cap, seconds) {
  const stop = new AbortController();
  const prober = createProber({
    probes: [{ tcpSocket: { port }, periodSeconds: 0 }],
    transport: nodeTransport,
    clock: systemClock,
    aggressive: { connectRetryMaxMs: cap, maxDurationMs: 60_000 },
    signal: stop.signal,
  });
  const c0 = cpuMs();
  let c1 = c0;
  setTimeout(() => {
    c1 = cpuMs();
  }, 1000);
  setTimeout(() => stop.abort(), seconds * 1000);
  await prober.probe();
  return { first: c1 - c0, after: (cpuMs() - c1) / Math.max(1, seconds - 1) };
}
console.log("CPU while polling a closed port (ms of CPU per s of waiting), by connectRetryMaxMs:");
// One unprinted second first: it compiles the refused-connect path.
await cpuWhilePolling(1, 1);
for (const cap of [0, 4, 50]) {
  const { first, after } = await cpuWhilePolling(cap, 5);
  console.log(
    `  ${String(cap).padStart(2)} ms: first second ${first.toFixed(0)}, seconds 1-5 ${after.toFixed(0)}`,
  );
}
