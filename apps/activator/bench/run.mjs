#!/usr/bin/env node
// Activator benchmark (issue 7), one run:
//  1. warm proxy path: direct backend vs thaw-activator vs node-http-proxy (wrk on CPU 0, backend + proxy
//     on CPU 1), requests/s at 64 connections, activator CPU per request, added p50/p99 at 1 connection;
//     beside them the floor, a bare node:http server relaying through the activator's HTTP/1 client
//     (bench/bare-relay.mjs, the activator's V8 flags): the most any change inside the activator can reach;
//  2. activation latency: backend starts accepting -> first queued request answered (p50/p95/p99);
//  3. 1,000 requests queued across one activation: all answered, in arrival order, no error.
//
//   npm run bench                       (~1 min)
//   THAW_BENCH_QUICK=1 npm run bench    shorter
// Needs wrk and taskset. Loopback only; child processes run in their own groups and are killed by PID.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  benchCommandLine,
  canPin,
  fixed,
  freePort,
  groupCpuMicros,
  hasCommand,
  median,
  profileServer,
  quantile,
  runWrk,
  shouldProfile,
  sleep,
  startGroup,
  verdict,
  waitPort,
} from "@thaw/bench-kit";
import { Agent, request } from "undici";

benchCommandLine(import.meta.url, {
  name: "node bench/run.mjs",
  summary:
    "@thaw/activator's warm-path benchmark: the backend direct, thaw-activator, node-http-proxy and a bare relay floor under wrk (req/s at 64 connections, CPU per request, added p50/p99 at 1 connection), then activation latency and 1,000 requests queued across one activation",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 2 s measurements, 1 round and 15 activations instead of 4 s, 3 rounds and 40",
    },
  ],
  more: "Needs wrk and taskset, and a build (dist/). `npm run bench` in apps/activator runs it, then bench/queued.mjs and bench/revisions.mjs.",
});

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, "..", "dist");
const QUICK = Boolean(process.env.THAW_BENCH_QUICK);
const DUR = QUICK ? 2 : 4;
const ROUNDS = QUICK ? 1 : 3;
const ACTIVATIONS = QUICK ? 15 : 40;
const PIN = canPin();
// The activator runs as its shebang would (`env -S node <V8 flags>`): the deployed settings.
const MAIN = join(DIST, "node", "main.js");
const MAIN_FLAGS = (/^#!\S*env -S node(.*)$/.exec(readFileSync(MAIN, "utf8").split("\n")[0])?.[1] ?? "")
  .split(" ")
  .filter(Boolean);
const REV = { namespace: "bench", name: "bench-00001" };
const REV_HEADERS = {
  "Knative-Serving-Namespace": REV.namespace,
  "Knative-Serving-Revision": REV.name,
};

if (!hasCommand("wrk")) {
  console.error("bench: wrk not found (apt-get install -y wrk)");
  process.exit(2);
}

// Every server leads its own process group (killed at exit), pinned to CPU 1 when wrk can have CPU 0.
const start = (name, args, env = {}) =>
  startGroup(name, process.execPath, args, { env, cpu: PIN ? "1" : undefined });
const wrk = (port, conns, seconds) =>
  runWrk({
    url: `http://127.0.0.1:${port}/`,
    connections: conns,
    seconds,
    headers: REV_HEADERS,
    cpu: PIN ? "0" : undefined,
  });

// ---------- 1. warm path ----------
async function warmPath() {
  const [pb, pa, ph] = [await freePort(), await freePort(), await freePort()];
  const backend = start("backend", [join(HERE, "backend.mjs"), String(pb)]);
  await waitPort(pb, backend);
  const activator = start("activator", [...MAIN_FLAGS, MAIN, "--host", "127.0.0.1", "--port", String(pa)], {
    THAW_REVISIONS: JSON.stringify([{ ...REV, endpoints: [`127.0.0.1:${pb}`] }]),
    THAW_DRAIN_DELAY_MS: "0",
  });
  const proxy = start("http-proxy", [join(HERE, "http-proxy.mjs"), String(ph), String(pb)]);
  const pr = await freePort();
  const relay = start("bare-relay", [...MAIN_FLAGS, join(HERE, "bare-relay.mjs"), String(pr), String(pb)]);
  await waitPort(pa, activator);
  await waitPort(ph, proxy);
  await waitPort(pr, relay);
  const targets = [
    { name: "direct", port: pb, pgid: backend.pid },
    { name: "activator", port: pa, pgid: activator.pid },
    { name: "http-proxy", port: ph, pgid: proxy.pid },
    { name: "bare-relay", port: pr, pgid: relay.pid },
  ];
  for (const t of targets) await wrk(t.port, 16, 1); // warm-up: JIT, pools
  // Rounds interleave the targets so that a burst of load from elsewhere hits all of them; medians reported.
  const runs = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const before = groupCpuMicros(t.pgid);
      const c64 = await wrk(t.port, 64, DUR);
      const cpuUs = (groupCpuMicros(t.pgid) - before) / Math.max(1, c64.requests);
      const c1 = await wrk(t.port, 1, DUR);
      runs[t.name].push({ c64, c1, cpuUs });
    }
  }
  const res = {};
  for (const [name, rs] of Object.entries(runs)) {
    res[name] = {
      c64: { rps: median(rs.map((r) => r.c64.rps)), errors: rs.reduce((n, r) => n + r.c64.non2xx, 0) },
      c1: {
        p50: median(rs.map((r) => r.c1.p50)),
        p99: median(rs.map((r) => r.c1.p99)),
        errors: rs.reduce((n, r) => n + r.c1.non2xx, 0),
      },
      cpuUs: median(rs.map((r) => r.cpuUs)),
      ratioRounds: rs.map((r) => r.c64.rps),
    };
  }
  // Where the activator's time goes at 64 connections: the same set-up once more under the V8 profiler.
  const profile = async () => {
    const pp = await freePort();
    return profileServer(
      "activator-warm-c64",
      (flags) =>
        start(
          "activator-profiled",
          [...MAIN_FLAGS, ...flags, MAIN, "--host", "127.0.0.1", "--port", String(pp)],
          {
            THAW_REVISIONS: JSON.stringify([{ ...REV, endpoints: [`127.0.0.1:${pb}`] }]),
            THAW_DRAIN_DELAY_MS: "0",
          },
        ),
      async (server) => {
        await waitPort(pp, server);
        await wrk(pp, 16, 1);
        await wrk(pp, 64, DUR);
      },
    );
  };
  return { res, profile };
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

const f = (n, d = 2) => fixed(n, d, "n/a");
const load = spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.trim();
console.log(
  `activator bench: ${QUICK ? "quick, " : ""}${ROUNDS} round(s), ${DUR}s per wrk run, medians, pinned=${PIN}, load before: ${load}`,
);
const { res: warm, profile: profileWarm } = await warmPath();
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
// Issue 30 goal 3: 2.5 x node-http-proxy's req/s, the ratio taken per round (same load on both), median.
const xHttpProxy = median(a.ratioRounds.map((x, i) => x / h.ratioRounds[i]));
const b = warm["bare-relay"];
const xFloor = median(b.ratioRounds.map((x, i) => x / h.ratioRounds[i]));
const perRoundFloor = b.ratioRounds.map((x, i) => f(x / h.ratioRounds[i])).join(", ");
console.log(
  `   floor (bare node:http + the same HTTP/1 client) vs node-http-proxy: ${f(xFloor)}x (per round ${perRoundFloor}); ` +
    `activator ${f(xHttpProxy / xFloor)}x the floor's req/s, ${f(a.cpuUs / b.cpuUs)}x its CPU per request`,
);
const warmPass = verdict(
  "activator warm req/s vs node-http-proxy, c=64",
  xHttpProxy,
  ">=",
  2.5,
  "x",
  `${f(a.c64.rps, 0)} vs ${f(h.c64.rps, 0)} req/s, per round ${perRound}; floor ${f(xFloor)}x`,
);
if (shouldProfile(warmPass)) await profileWarm();
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
  `   p50 ${f(quantile(act.latencies, 50), 1)} ms  p95 ${f(quantile(act.latencies, 95), 1)} ms  p99 ${f(quantile(act.latencies, 99), 1)} ms  max ${f(Math.max(...act.latencies), 1)} ms (targets p95 < 50, p99 < 100; Knative probes every 200 ms)`,
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
