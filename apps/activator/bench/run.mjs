#!/usr/bin/env node
// Activator benchmark (issue 7), one run:
//  1. warm proxy path: direct backend vs thaw-activator vs node-http-proxy (wrk on CPU 0, backend + proxy
//     on CPU 1), requests/s at 64 connections, activator CPU per request, added p50/p99 at 1 connection;
//  2. activation latency: backend starts accepting -> first queued request answered (p50/p95/p99);
//  3. 1,000 requests queued across one activation: all answered, in arrival order, no error.
//
//   npm run bench                       (~1 min)
//   THAW_BENCH_QUICK=1 npm run bench    shorter
// Needs wrk and taskset. Loopback only; child processes run in their own groups and are killed by PID.
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, "..", "dist");
const QUICK = Boolean(process.env.THAW_BENCH_QUICK);
const DUR = QUICK ? 2 : 4;
const ROUNDS = QUICK ? 1 : 3;
const ACTIVATIONS = QUICK ? 15 : 40;
const PIN = cpus().length >= 2 && spawnSync("taskset", ["-V"]).status === 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const REV = { namespace: "bench", name: "bench-00001" };
const REV_HEADERS = [
  "-H",
  `Knative-Serving-Namespace: ${REV.namespace}`,
  "-H",
  `Knative-Serving-Revision: ${REV.name}`,
];

if (spawnSync("sh", ["-c", "command -v wrk"]).status !== 0) {
  console.error("bench: wrk not found (apt-get install -y wrk)");
  process.exit(2);
}

const children = [];
function start(name, args, env = {}) {
  const cmd = PIN ? ["taskset", ["-c", "1", process.execPath, ...args]] : [process.execPath, args];
  const proc = spawn(cmd[0], cmd[1], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  proc.stderr.on("data", (d) => {
    err = (err + d).slice(-2000);
  });
  children.push(proc);
  return { name, proc, err: () => err };
}
process.on("exit", () => {
  for (const c of children) {
    try {
      process.kill(-c.pid, "SIGKILL");
    } catch {}
  }
});
for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => process.exit(130));

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}
async function waitPort(port, child) {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((r) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        r(true);
      });
      s.on("error", () => r(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${child.name} did not listen on ${port}: ${child.err()}`);
}

function cpuTicks(pgid) {
  const out = spawnSync("sh", ["-c", `cat /proc/[0-9]*/stat 2>/dev/null`]).stdout.toString();
  let ticks = 0;
  for (const line of out.split("\n")) {
    const rest = line.slice(line.lastIndexOf(")") + 2).split(" ");
    if (Number(rest[2]) === pgid) ticks += Number(rest[11]) + Number(rest[12]);
  }
  return ticks;
}
const TICK_US = 1e6 / Number(spawnSync("getconf", ["CLK_TCK"]).stdout.toString().trim() || 100);

function toMs(v) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v);
  if (!m) return Number.NaN;
  return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
}
function wrk(port, conns, seconds) {
  const args = [
    "-t1",
    `-c${conns}`,
    `-d${seconds}s`,
    "--latency",
    ...REV_HEADERS,
    `http://127.0.0.1:${port}/`,
  ];
  const cmd = PIN ? ["taskset", ["-c", "0", "wrk", ...args]] : ["wrk", args];
  const out = spawnSync(cmd[0], cmd[1], { encoding: "utf8" }).stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const pct = (p) => toMs(new RegExp(`\\s${p}%\\s+(\\S+)`).exec(out)?.[1] ?? "");
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? "0";
  return { rps, total, p50: pct(50), p99: pct(99), errors: Number(errors) };
}

// ---------- 1. warm path ----------
async function warmPath() {
  const [pb, pa, ph] = [await freePort(), await freePort(), await freePort()];
  const backend = start("backend", [join(HERE, "backend.mjs"), String(pb)]);
  await waitPort(pb, backend);
  const activator = start(
    "activator",
    [join(DIST, "node", "main.js"), "--host", "127.0.0.1", "--port", String(pa)],
    {
      THAW_REVISIONS: JSON.stringify([{ ...REV, endpoints: [`127.0.0.1:${pb}`] }]),
      THAW_DRAIN_DELAY_MS: "0",
    },
  );
  const proxy = start("http-proxy", [join(HERE, "http-proxy.mjs"), String(ph), String(pb)]);
  await waitPort(pa, activator);
  await waitPort(ph, proxy);
  const targets = [
    { name: "direct", port: pb, pgid: backend.proc.pid },
    { name: "activator", port: pa, pgid: activator.proc.pid },
    { name: "http-proxy", port: ph, pgid: proxy.proc.pid },
  ];
  for (const t of targets) wrk(t.port, 16, 1); // warm-up: JIT, pools
  // Rounds interleave the targets so that a burst of load from elsewhere hits all of them; medians reported.
  const runs = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const before = cpuTicks(t.pgid);
      const c64 = wrk(t.port, 64, DUR);
      const cpuUs = ((cpuTicks(t.pgid) - before) * TICK_US) / Math.max(1, c64.total);
      const c1 = wrk(t.port, 1, DUR);
      runs[t.name].push({ c64, c1, cpuUs });
    }
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const res = {};
  for (const [name, rs] of Object.entries(runs)) {
    res[name] = {
      c64: { rps: med(rs.map((r) => r.c64.rps)), errors: rs.reduce((n, r) => n + r.c64.errors, 0) },
      c1: {
        p50: med(rs.map((r) => r.c1.p50)),
        p99: med(rs.map((r) => r.c1.p99)),
        errors: rs.reduce((n, r) => n + r.c1.errors, 0),
      },
      cpuUs: med(rs.map((r) => r.cpuUs)),
      ratioRounds: rs.map((r) => r.c64.rps),
    };
  }
  return res;
}

// ---------- 2 + 3. activation ----------
async function activation() {
  const { startActivator } = await import(join(DIST, "node", "server.js"));
  const { StaticDirectory, StaticEndpointSource } = await import(join(DIST, "index.js"));
  const { defaultRevisionConfig } = await import(join(DIST, "revisions-json.js"));
  const directory = new StaticDirectory();
  const endpoints = new StaticEndpointSource();
  const running = await startActivator(
    {
      host: "127.0.0.1",
      port: 0,
      token: undefined,
      autoscalerUrl: undefined,
      podName: "bench",
      drainDelayMs: 0,
      drainTimeoutMs: 1000,
      metricsPath: "/metrics",
      revisions: [],
    },
    { revisions: directory, endpoints },
  );
  const client = new Agent({ connections: 2000, keepAliveTimeout: 10_000 });
  const call = (key, path = "/") =>
    request(`http://127.0.0.1:${running.port}${path}`, {
      dispatcher: client,
      headers: { "knative-serving-namespace": key.namespace, "knative-serving-revision": key.name },
    }).then(async (r) => ({ status: r.statusCode, body: await r.body.text(), at: performance.now() }));

  // 2. Pod listed but not accepting; one request waits; the pod starts accepting; time to the answer.
  const latencies = [];
  for (let i = 0; i < ACTIVATIONS; i++) {
    const key = { namespace: "bench", name: `act-${i}` };
    const port = await freePort();
    directory.set(key, defaultRevisionConfig);
    endpoints.set(key, [`127.0.0.1:${port}`]);
    const answered = call(key);
    await sleep(150 + Math.random() * 100);
    const server = http.createServer((req, res) =>
      res.end(req.headers["k-network-probe"] === "queue" ? "queue" : "ok"),
    );
    const accepting = await new Promise((r) => server.listen(port, "127.0.0.1", () => r(performance.now())));
    const r = await answered;
    if (r.status !== 200) throw new Error(`activation ${i}: status ${r.status}`);
    latencies.push(r.at - accepting);
    server.closeAllConnections();
    server.close();
  }

  // 3. 1,000 requests queued (one after another, so arrival order is known), then one activation.
  const order = {};
  for (const cc of [1, 0]) {
    const key = { namespace: "bench", name: `burst-cc${cc}` };
    const port = await freePort();
    directory.set(key, { ...defaultRevisionConfig, containerConcurrency: cc });
    endpoints.set(key, [`127.0.0.1:${port}`]);
    const seen = [];
    const pending = [];
    const queued0 = running.telemetry.snapshot().queued;
    for (let i = 0; i < 1000; i++) {
      pending.push(call(key, `/${i}`));
      // The next request goes only once this one is counted as queued in the activator.
      for (let spin = 0; running.telemetry.snapshot().queued < queued0 + i + 1 && spin < 10_000; spin++)
        await sleep(0);
    }
    const server = http.createServer((req, res) => {
      if (req.headers["k-network-probe"] === "queue") return res.end("queue");
      seen.push(Number(req.url.slice(1)));
      res.end(req.url);
    });
    const t0 = performance.now();
    await new Promise((r) => server.listen(port, "127.0.0.1", r));
    const results = await Promise.all(pending);
    const t1 = performance.now();
    const errors = results.filter((r) => r.status !== 200).length;
    let inversions = 0;
    for (let i = 1; i < seen.length; i++) if (seen[i] < seen[i - 1]) inversions++;
    const answerOrder = results.map((r, i) => ({ i, at: r.at })).sort((a, b) => a.at - b.at);
    let answerInversions = 0;
    for (let i = 1; i < answerOrder.length; i++)
      if (answerOrder[i].i < answerOrder[i - 1].i) answerInversions++;
    order[`cc${cc}`] = {
      answered: results.length,
      errors,
      backendInversions: inversions,
      answerInversions,
      drainMs: t1 - t0,
    };
    server.closeAllConnections();
    server.close();
  }
  await running.close();
  await client.close();
  return { latencies, order };
}

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
const load = spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.trim();
console.log(
  `activator bench: ${QUICK ? "quick, " : ""}${ROUNDS} round(s), ${DUR}s per wrk run, medians, pinned=${PIN}, load before: ${load}`,
);
const warm = await warmPath();
const d = warm.direct;
const a = warm.activator;
const h = warm["http-proxy"];
console.log("\n1. warm path (64 connections: requests/s; 1 connection: latency)");
for (const [name, r] of Object.entries(warm)) {
  console.log(
    `   ${name.padEnd(11)} ${f(r.c64.rps, 0).padStart(7)} req/s  (${f(r.c64.rps / d.c64.rps)}x direct)  c1 p50 ${f(r.c1.p50, 3)} ms  p99 ${f(r.c1.p99, 3)} ms  cpu ${f(r.cpuUs, 1)} us/req  non-2xx ${r.c64.errors + r.c1.errors}`,
  );
}
const perRound = a.ratioRounds.map((x, i) => f(x / h.ratioRounds[i])).join(", ");
console.log(
  `   activator vs node-http-proxy: ${f(a.c64.rps / h.c64.rps)}x requests/s (target >= 1.15x; per round ${perRound})`,
);
console.log(
  `   activator CPU per request: ${f(a.cpuUs, 1)} us (target <= 60 us; process group incl. its pool)`,
);
console.log(
  `   added latency at 1 connection: p50 ${f(a.c1.p50 - d.c1.p50, 3)} ms (target < 0.1), p99 ${f(a.c1.p99 - d.c1.p99, 3)} ms (target < 1)`,
);
const act = await activation();
console.log(
  `\n2. activation latency, backend accepting -> first queued request answered (${act.latencies.length} runs)`,
);
console.log(
  `   p50 ${f(q(act.latencies, 50), 1)} ms  p95 ${f(q(act.latencies, 95), 1)} ms  p99 ${f(q(act.latencies, 99), 1)} ms  max ${f(Math.max(...act.latencies), 1)} ms (targets p95 < 50, p99 < 100; Knative probes every 200 ms)`,
);
console.log("\n3. 1,000 requests queued across one activation");
for (const [k, v] of Object.entries(act.order)) {
  console.log(
    `   ${k}: ${v.answered} answered, ${v.errors} errors, backend saw ${v.backendInversions} out-of-order, answers ${v.answerInversions} out-of-order, all done ${f(v.drainMs, 0)} ms after the pod started`,
  );
}
console.log(
  `\nload after: ${spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.trim()} (machine shared with other builds)`,
);
process.exit(0);
