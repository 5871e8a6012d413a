#!/usr/bin/env node
// Queue-proxy benchmark (issues 6, 19 and 30): one interleaved run of the backend direct, Thaw's queue-proxy
// (CC 0, 10, 100, request metrics on), node-http-proxy, a minimal undici proxy, nginx, node-relay and
// Knative's own queue-proxy (built from its Go module by kn-queue.mjs, or KN_QUEUE_BIN), with wrk on CPU 0 and backend + proxy on
// CPU 1 (a pod's two containers sharing one core). The c=1 tail that issue 19 compares is measured by
// c1-client.mjs, which sends to direct, qp-cc0, nginx and kn-queue in turn (wrk's c=1 rows stay in the
// table, but each of them sees its own seconds of machine noise).
//
//   npm run bench:queue-proxy                   1 run x 3 rounds (~3.5 min)
//   node bench/run.mjs --runs 5                 5 runs, each printed (issue 19 asks the c=1 tail over 5)
//   --c1-rounds 5 --c1-requests 5000            the interleaved c=1 client per run (c1-client.mjs)
//   node bench/run.mjs --runs 1 --rounds 1      one quick pass
//   THAW_BENCH_QUICK=1 npm run bench            1 run, 1 round, 1 s per measurement
//   KN_QUEUE_BIN=/tmp/kn-queue npm run bench    Knative's queue-proxy from that binary (KN_QUEUE_BIN=off: none)
//   node bench/run.mjs --help                   every flag and variable
//
// Needs wrk, nginx and taskset (apt-get install -y wrk nginx-light), and Go >= 1.24 for the Knative peer. Only loopback is used; every
// server runs in its own process group and is killed by PID at the end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  benchCommandLine,
  canConnect,
  canPin,
  fixed as f,
  groupCpuMicros,
  killAllGroups,
  killGroup,
  median,
  profileServer,
  verdict as record,
  runWrk,
  shouldProfile,
  sleep,
  startGroup,
  waitPort,
} from "@thaw/bench-kit";
import { knQueueBinary } from "./kn-queue.mjs";
import { qpEnv } from "./servers/qp-env.mjs";

const { flags } = benchCommandLine(import.meta.url, {
  name: "node bench/run.mjs",
  summary:
    "@thaw/queue-proxy's benchmark: the backend direct, Thaw's queue-proxy (CC 0, 10, 100, request metrics on), node-http-proxy, an undici proxy, nginx, node-relay and Knative's queue-proxy, interleaved rounds at 1 and 64 connections with wrk on CPU 0 and backend + proxy on CPU 1, then the interleaved c=1 client and the issue 30 verdicts",
  flags: [
    {
      name: "--runs",
      value: "N",
      default: "1",
      help: "runs, each printed (issue 19 asks the c=1 tail over 5)",
    },
    {
      name: "--rounds",
      value: "N",
      default: "3; 1 with THAW_BENCH_QUICK",
      help: "interleaved wrk rounds per run",
    },
    {
      name: "--duration",
      value: "SECONDS",
      default: "3; 1 with THAW_BENCH_QUICK",
      help: "seconds of each wrk measurement",
    },
    {
      name: "--base-port",
      value: "PORT",
      default: "19700",
      help: "first loopback port of the backend and targets (one each, upward)",
    },
    { name: "--c1-rounds", value: "N", default: "5", help: "rounds of the interleaved c=1 client per run" },
    {
      name: "--c1-requests",
      value: "N",
      default: "5000; 1000 with THAW_BENCH_QUICK",
      help: "requests per target in each c=1 round",
    },
    { name: "--no-pin", help: "do not pin wrk and the servers to separate CPUs" },
    { name: "--json", value: "FILE", help: "also write every raw number to FILE" },
  ],
  env: [
    {
      name: "THAW_BENCH_QP",
      default: "dist/main.js",
      help: "the queue-proxy's main.js to measure (e.g. the build before a change)",
    },
    {
      name: "KN_QUEUE_BIN",
      help: "Knative's queue-proxy binary as the peer; off = none; unset = built from its Go module (bench/kn-queue.mjs)",
    },
    {
      name: "XDG_CACHE_HOME",
      default: "~/.cache",
      help: "where the built Knative queue-proxy is kept, under thaw/kn-queue",
    },
    { name: "THAW_BENCH_QUICK", help: "1 = 1 round of 1 s per measurement and 1000 c=1 requests per target" },
  ],
  more: "From the repository root, `npm run bench:queue-proxy -- <flags>` builds first and passes these flags. Needs wrk, nginx and taskset (apt-get install -y wrk nginx-light), and Go >= 1.24 for the Knative peer.",
});

const QUICK = Boolean(process.env.THAW_BENCH_QUICK);
const HERE = dirname(fileURLToPath(import.meta.url));
// THAW_BENCH_QP=<path to main.js> measures another build (e.g. the one before a change) in the qp targets.
const QP = process.env.THAW_BENCH_QP
  ? resolve(process.env.THAW_BENCH_QP)
  : join(HERE, "..", "dist", "main.js");
// Run the bin as its shebang would (`env -S node <V8 flags>`), so the benchmark sees the deployed settings.
const QP_ARGS = [
  ...(/^#!\S*env -S node(.*)$/m.exec(readFileSync(QP, "utf8").split("\n")[0])?.[1] ?? "")
    .split(" ")
    .filter(Boolean),
  QP,
];
const RUNS = Number(flags["--runs"] ?? "1");
const ROUNDS = Number(flags["--rounds"] ?? (QUICK ? "1" : "3"));
// The interleaved c=1 client (c1-client.mjs): rounds per run and requests per target in each round.
const C1_ROUNDS = Number(flags["--c1-rounds"] ?? "5");
const C1_REQUESTS = Number(flags["--c1-requests"] ?? (QUICK ? "1000" : "5000"));
const DUR = Number(flags["--duration"] ?? (QUICK ? "1" : "3"));
const BASE = Number(flags["--base-port"] ?? "19700");
const PIN = flags["--no-pin"] !== "true" && canPin();
// wrk on CPU 0, backend and proxies on CPU 1 when pinned.
const WRK_CPU = PIN ? "0" : undefined;
const SERVER_CPU = PIN ? "1" : undefined;

for (const tool of ["wrk", "nginx"]) {
  if (spawnSync("sh", ["-c", `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0) {
    console.error(`bench: ${tool} not found (apt-get install -y wrk nginx-light)`);
    process.exit(2);
  }
}

// ---------- servers ----------
const work = mkdtempSync(join(tmpdir(), "thaw-qp-bench-"));
// Servers run in their own process groups (startGroup); at exit they are killed, then the scratch folder goes.
process.on("exit", () => {
  killAllGroups();
  rmSync(work, { recursive: true, force: true });
});
const start = (name, cmd, args, env = {}) => startGroup(name, cmd, args, { env, cpu: SERVER_CPU });

function nginxConf(port, backend) {
  const prefix = join(work, "nginx");
  spawnSync("mkdir", ["-p", join(prefix, "logs")]);
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(prefix, "nginx.pid")};
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  upstream app { server 127.0.0.1:${backend}; keepalive 256; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  return ["-p", prefix, "-c", conf];
}

// Knative's queue-proxy: KN_QUEUE_BIN, else built from its Go module (kn-queue.mjs). It binds 8022, 9090
// and 9091 on every interface whatever its environment, so it runs only when those are free.
const knQueue = knQueueBinary((line) => console.log(line));
const KN_QUEUE_BIN = knQueue.bin;
const KN_FIXED_PORTS = [8022, 9090, 9091];
async function knQueueUnavailable() {
  if (KN_QUEUE_BIN === "") return knQueue.reason;
  if (spawnSync("test", ["-x", KN_QUEUE_BIN]).status !== 0)
    return `KN_QUEUE_BIN=${KN_QUEUE_BIN} is not an executable`;
  for (const p of KN_FIXED_PORTS) if (await canConnect(p)) return `port ${p}, which it always binds, is busy`;
  return "";
}
const knMissing = await knQueueUnavailable();

const B = BASE;
const TARGETS = [
  { name: "direct", port: B },
  { name: "qp-cc0", port: B + 1, qp: { cc: 0, metrics: false } },
  { name: "qp-cc10", port: B + 2, qp: { cc: 10, metrics: false } },
  { name: "qp-cc100", port: B + 3, qp: { cc: 100, metrics: false } },
  { name: "qp-metrics", port: B + 4, qp: { cc: 0, metrics: true } },
  { name: "http-proxy", port: B + 5 },
  { name: "undici", port: B + 6 },
  { name: "nginx", port: B + 7 },
  // The floor under any Node proxy: bytes copied both ways, no HTTP (servers/node-relay.mjs).
  { name: "node-relay", port: B + 9 },
];
if (knMissing === "") TARGETS.push({ name: "kn-queue", port: B + 8 });

async function startServers() {
  for (const t of TARGETS)
    if (await canConnect(t.port)) throw new Error(`port ${t.port} is busy (${t.name})`);
  const node = process.execPath;
  for (const t of TARGETS) {
    if (t.name === "direct") t.child = start(t.name, node, [join(HERE, "servers", "backend.mjs"), String(B)]);
    else if (t.qp) t.child = start(t.name, node, QP_ARGS, qpEnv(B, t.port, t.qp.cc, t.qp.metrics));
    else if (t.name === "http-proxy")
      t.child = start(t.name, node, [join(HERE, "servers", "http-proxy.mjs"), String(t.port), String(B)]);
    else if (t.name === "undici")
      t.child = start(t.name, node, [join(HERE, "servers", "undici-proxy.mjs"), String(t.port), String(B)]);
    else if (t.name === "nginx") t.child = start(t.name, "nginx", nginxConf(t.port, B));
    else if (t.name === "node-relay")
      t.child = start(t.name, node, [join(HERE, "servers", "node-relay.mjs"), String(t.port), String(B)]);
    else if (t.name === "kn-queue")
      // Lean, as ../shared/reference/perf.md ran it: no tracing, no request metrics or log, no breaker.
      t.child = start(t.name, KN_QUEUE_BIN, [], {
        ...qpEnv(B, t.port, 0, false),
        TRACING_CONFIG_BACKEND: "none",
        SERVING_ENABLE_REQUEST_LOG: "false",
      });
    await waitPort(t.port, t.child);
  }
}

// ---------- measuring ----------
function rssKb(pid) {
  // The queue-proxy is the leader's child when pinned through taskset (exec keeps the PID).
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function wrk(port, conns, seconds) {
  return runWrk({ url: `http://127.0.0.1:${port}/`, connections: conns, seconds, cpu: WRK_CPU });
}

async function measure(t, conns, seconds) {
  const pgid = t.child.pid;
  const c0 = groupCpuMicros(pgid);
  const r = await wrk(t.port, conns, seconds);
  const c1 = groupCpuMicros(pgid);
  return { ...r, cpuPerReqUs: t.name === "direct" ? Number.NaN : (c1 - c0) / r.requests };
}

/** Arrival order through CC=10: 100 requests started 1 ms apart on their own connections, backend
 *  answering after 20 ms (so up to ~50 wait, well inside the 10 x CC queue), must reach the app in the
 *  order they were sent. */
async function arrivalOrder(target) {
  const seen = [];
  const app = http.createServer((req, res) => {
    seen.push(Number(new URL(req.url, "http://x").searchParams.get("i")));
    setTimeout(() => res.end("ok"), 20);
  });
  await new Promise((r) => app.listen(0, "127.0.0.1", r));
  const port = B + 20;
  const qp = start("qp-order", process.execPath, QP_ARGS, qpEnv(app.address().port, port, target, false));
  await waitPort(port, qp);
  const sends = [];
  const failures = [];
  for (let i = 0; i < 100; i++) {
    sends.push(
      new Promise((resolve) => {
        const req = http.get({ host: "127.0.0.1", port, path: `/?i=${i}`, agent: false }, (res) => {
          if (res.statusCode !== 200) failures.push(`status ${res.statusCode}`);
          res.resume();
          res.on("end", resolve);
        });
        req.on("error", (err) => {
          failures.push(err.code ?? err.message);
          resolve();
        });
      }),
    );
    await sleep(1);
  }
  await Promise.all(sends);
  killGroup(qp);
  await new Promise((r) => app.close(r));
  let inversions = 0;
  for (let i = 1; i < seen.length; i++) if (seen[i] < seen[i - 1]) inversions++;
  return { requests: seen.length, inversions, failures };
}

/**
 * The c=1 tail, interleaved (c1-client.mjs): direct, qp-cc0, nginx and kn-queue take turns on one
 * request at a time, so a burst of noise from the shared CPU lands on all of them alike. Per round:
 * each target's p99 minus the direct backend's p99 in that round.
 */
function interleavedC1() {
  const names = ["direct", "qp-cc0", "nginx", "kn-queue"];
  const arg = JSON.stringify({
    targets: TARGETS.filter((t) => names.includes(t.name)).map(({ name, port }) => ({ name, port })),
    rounds: C1_ROUNDS,
    requests: C1_REQUESTS,
  });
  const client = [join(HERE, "c1-client.mjs"), arg];
  const [file, argv] =
    WRK_CPU === undefined
      ? [process.execPath, client]
      : ["taskset", ["-c", WRK_CPU, process.execPath, ...client]];
  const out = spawnSync(file, argv, { encoding: "utf8", timeout: 300_000 });
  if (out.status !== 0) throw new Error(`c1-client failed: ${out.stderr || out.error}`);
  const { rounds } = JSON.parse(out.stdout);
  const added = Object.fromEntries(
    names
      .filter((n) => rounds[0][n] !== undefined)
      .map((n) => [
        n,
        rounds.map((r) => ({
          p99: r[n].p99,
          addP50: r[n].p50 - r.direct.p50,
          addP99: r[n].p99 - r.direct.p99,
        })),
      ]),
  );
  return { samples: rounds[0].direct.n, added };
}

// ---------- reporting ----------
async function oneRun(runIndex) {
  const rows = {}; // `${target}@${conns}` -> [{...round}]
  for (let round = 0; round < ROUNDS; round++) {
    const order = TARGETS.slice(round % TARGETS.length).concat(TARGETS.slice(0, round % TARGETS.length));
    for (const conns of [1, 64]) {
      const byName = {};
      for (const t of order) {
        byName[t.name] = await measure(t, conns, DUR);
        await sleep(200);
      }
      for (const t of TARGETS) {
        const r = byName[t.name];
        r.xDirect = r.rps / byName.direct.rps;
        r.xHttpProxy = r.rps / byName["http-proxy"].rps;
        r.xCc0 = r.rps / byName["qp-cc0"].rps;
        r.xNginx = r.rps / byName.nginx.rps;
        r.cpuXNginx = r.cpuPerReqUs / byName.nginx.cpuPerReqUs;
        r.cpuXRelay = r.cpuPerReqUs / byName["node-relay"].cpuPerReqUs;
        r.addP50 = r.p50 - byName.direct.p50;
        r.addP99 = r.p99 - byName.direct.p99;
        const key = `${t.name}@${conns}`;
        rows[key] = [...(rows[key] ?? []), r];
      }
    }
    console.error(`run ${runIndex + 1} round ${round + 1}/${ROUNDS} done`);
  }
  const qp0 = TARGETS.find((t) => t.name === "qp-cc0");
  const rssIdleKb = rssKb(qp0.child.pid); // after the rounds, between loads
  let rss256Kb = 0;
  const sampler = setInterval(() => {
    rss256Kb = Math.max(rss256Kb, rssKb(qp0.child.pid));
  }, 100);
  const load256 = await measure(qp0, 256, DUR);
  clearInterval(sampler);
  const summary = {};
  for (const [key, rs] of Object.entries(rows)) {
    summary[key] = Object.fromEntries(Object.keys(rs[0]).map((k) => [k, median(rs.map((r) => r[k]))]));
    summary[key].errors = rs.reduce((a, r) => a + r.errors, 0);
  }
  const order = await arrivalOrder(10);
  const c1 = interleavedC1();
  return { summary, rssIdleMb: rssIdleKb / 1024, rss256Mb: rss256Kb / 1024, load256, order, c1 };
}

function printTable(summary) {
  const head = [
    "target",
    "conns",
    "req/s",
    "x direct",
    "x http-proxy",
    "x qp-cc0",
    "x nginx",
    "p50 ms",
    "p99 ms",
    "mean ms",
    "+p50 ms",
    "+p99 ms",
    "cpu/req us",
    "errors",
  ];
  const lines = [head];
  for (const conns of [1, 64])
    for (const t of TARGETS) {
      const s = summary[`${t.name}@${conns}`];
      lines.push([
        t.name,
        conns,
        f(s.rps, 0),
        f(s.xDirect, 3),
        f(s.xHttpProxy, 3),
        f(s.xCc0, 3),
        f(s.xNginx, 3),
        f(s.p50),
        f(s.p99),
        f(s.mean),
        f(s.addP50),
        f(s.addP99),
        f(s.cpuPerReqUs, 1),
        s.errors,
      ]);
    }
  const w = head.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  for (const l of lines) console.log(l.map((c, i) => String(c).padStart(w[i])).join("  "));
}

function loadAverage() {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** A ratio against a peer of the same run as a PASS/MISS verdict (recorded for `npm run bench`'s table). */
function verdict(name, figure, peer, ratio, op, goal) {
  return record(name, ratio, op, goal, "x", `${figure} vs peer ${peer}`);
}

/** The median over a run's interleaved c=1 rounds of `name`'s added p99 (ms). */
function c1AddP99(run, name) {
  return median(run.c1.added[name].map((x) => x.addP99));
}

/** The interleaved c=1 rounds of one run: each target's p99 per round and its added p50/p99. */
function printC1(run) {
  console.log(
    `c=1 interleaved (${C1_ROUNDS} rounds x ${run.c1.samples} requests per target, one request in flight at a time):`,
  );
  for (const [name, rs] of Object.entries(run.c1.added)) {
    console.log(
      `  ${name.padEnd(8)} p99 ${rs.map((x) => f(x.p99)).join(" ")} ms; added p50 ${f(median(rs.map((x) => x.addP50)))}, added p99 median ${f(c1AddP99(run, name))} [${rs.map((x) => f(x.addP99)).join(" ")}]`,
    );
  }
}

/**
 * Issue 30's goal 1 for one run, each figure against its baseline or peer measured in the same run
 * (interleaved rounds, medians of the paired ratios): c=64 req/s and CPU per request against nginx, CPU
 * against node-relay (the floor under any Node proxy), CC=100 and request metrics against CC=0, and the
 * c=1 added p99 from wrk and from the interleaved client against Knative's queue-proxy. Returns each
 * figure's verdict by name, so the runs can be counted at the end.
 */
function printGoals(run, label) {
  const { summary } = run;
  const qp64 = summary["qp-cc0@64"];
  const ng64 = summary["nginx@64"];
  const relay64 = summary["node-relay@64"];
  const qp1 = summary["qp-cc0@1"];
  console.log(`\n## issue 30 goal 1, ${label} (load average ${loadAverage()})`);
  const pass = {};
  pass.rps = verdict("c=64 req/s vs nginx", f(qp64.rps, 0), f(ng64.rps, 0), qp64.xNginx, ">=", 1.0);
  pass.cpu = verdict(
    "c=64 proxy CPU per request vs nginx (us)",
    f(qp64.cpuPerReqUs, 1),
    f(ng64.cpuPerReqUs, 1),
    qp64.cpuXNginx,
    "<=",
    1.1,
  );
  // The relay copies bytes with Node's own socket I/O and parses nothing: what it spends over nginx is the
  // floor of any Node proxy, so when it is above 1.1x nginx the CPU goal falls back to matching it.
  const floorAllows = relay64.cpuXNginx <= 1.1;
  pass.floor = verdict(
    "c=64 proxy CPU per request vs node-relay (us)",
    f(qp64.cpuPerReqUs, 1),
    f(relay64.cpuPerReqUs, 1),
    qp64.cpuXRelay,
    "<=",
    1.0,
  );
  console.log(
    `      (node-relay c=64: ${f(relay64.rps, 0)} req/s, ${f(relay64.xNginx, 2)}x nginx's req/s at ` +
      `${f(relay64.cpuXNginx, 2)}x its CPU: the floor ${floorAllows ? "allows" : "does not allow"} <= 1.1x nginx)`,
  );
  pass.cc100 = verdict(
    "c=64 req/s CC=100 vs CC=0",
    f(summary["qp-cc100@64"].rps, 0),
    f(qp64.rps, 0),
    summary["qp-cc100@64"].xCc0,
    ">=",
    0.95,
  );
  pass.metrics = verdict(
    "c=64 req/s metrics on vs off",
    f(summary["qp-metrics@64"].rps, 0),
    f(qp64.rps, 0),
    summary["qp-metrics@64"].xCc0,
    ">=",
    0.95,
  );
  pass.wrkTail = record("c=1 added p99 (wrk)", qp1.addP99, "<=", 0.6, "ms", `p99 ${f(qp1.p99)} ms`);
  if (run.c1.added["kn-queue"] === undefined) console.log(`kn-queue: not available (${knMissing})`);
  else {
    const qp = c1AddP99(run, "qp-cc0");
    const kn = c1AddP99(run, "kn-queue");
    // A peer whose added p99 is at or below zero makes a ratio meaningless: met only if ours is no larger.
    const ratio = kn > 0 ? qp / kn : qp <= kn ? 0 : Number.POSITIVE_INFINITY;
    pass.knTail = verdict("c=1 added p99 vs kn-queue (ms), interleaved", f(qp), f(kn), ratio, "<=", 0.8);
    const kn64 = summary["kn-queue@64"];
    console.log(
      `      (kn-queue c=64: ${f(kn64.rps, 0)} req/s, ${f(kn64.cpuPerReqUs, 1)} us/req; qp-cc0 ` +
        `${f(qp64.rps / kn64.rps, 2)}x its req/s at ${f(qp64.cpuPerReqUs / kn64.cpuPerReqUs, 2)}x its CPU)`,
    );
  }
  profileAfterMiss ||= shouldProfile(pass.rps && pass.cpu);
  return pass;
}

/** Set when a c=64 figure missed: the queue-proxy is then profiled once under c=64 after the runs. */
let profileAfterMiss = false;

await startServers();
if (knMissing !== "") console.log(`kn-queue: not available (${knMissing})`);
const machine = `${cpus().length} CPUs (${cpus()[0]?.model}), node ${process.version}, ${PIN ? "wrk on CPU 0, backend+proxies on CPU 1" : "unpinned"}, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`;
console.log(
  `queue-proxy bench: ${RUNS} run(s) x ${ROUNDS} interleaved round(s) x ${DUR}s per measurement; ${machine}`,
);
const rssStartMb = rssKb(TARGETS.find((t) => t.name === "qp-cc0").child.pid) / 1024;
console.log(`RSS qp-cc0 right after start: ${f(rssStartMb, 1)} MB`);
// Warm-up: JIT and connection pools.
for (const t of TARGETS) await wrk(t.port, 64, 1);
const runs = [];
/** Each run's issue 30 verdicts by figure. */
const goals = [];
for (let i = 0; i < RUNS; i++) {
  const r = await oneRun(i);
  runs.push(r);
  console.log(`\n## run ${i + 1}`);
  printTable(r.summary);
  console.log(
    `RSS qp-cc0: idle after the rounds ${f(r.rssIdleMb, 1)} MB, under 256 connections ${f(r.rss256Mb, 1)} MB (${f(r.load256.rps, 0)} req/s, ${r.load256.errors} errors)`,
  );
  console.log(
    `arrival order through CC=10: ${r.order.inversions} inversions in ${r.order.requests} requests reaching the app` +
      (r.order.failures.length ? `; client failures: ${r.order.failures.join(", ")}` : ""),
  );
  printC1(r);
  goals.push(printGoals(r, `run ${i + 1}`));
  console.log(`load average after run ${i + 1}: ${loadAverage()}`);
}

// ---------- targets (issue 6), median over runs ----------
const M = (key, field) => median(runs.map((r) => r.summary[key][field]));
const cc10 = (field) => M("qp-cc10@64", field);
const errorsTotal = runs.reduce(
  (a, r) => a + Object.values(r.summary).reduce((b, s) => b + s.errors, 0) + r.load256.errors,
  0,
);
// The 48 us goal was set when ../shared/reference/perf.md measured the minimal undici proxy at 50.0 us and
// Knative's queue-proxy at 50.9 us on this machine; CPU per request moves with the host, so the same goal
// is also checked against the undici proxy measured in the same run (48 / 50.0 = 0.96x).
const cpuVsUndici = median(
  runs.map((r) => r.summary["qp-cc0@64"].cpuPerReqUs / r.summary["undici@64"].cpuPerReqUs),
);
const checks = [
  ["c=64 throughput vs node-http-proxy", M("qp-cc0@64", "xHttpProxy"), ">=", 1.35],
  ["c=64 proxy CPU per request (us)", M("qp-cc0@64", "cpuPerReqUs"), "<=", 48],
  ["c=64 proxy CPU vs undici proxy, same run", cpuVsUndici, "<=", 0.96],
  // Measured by wrk, as when these goals were set; issue 19's tail uses the interleaved client.
  ["c=1 added p50 (ms), wrk", M("qp-cc0@1", "addP50"), "<=", 0.08],
  ["CC=10 c=64 p99 / mean", cc10("p99") / cc10("mean"), "<=", 3],
  ["CC=10 arrival-order inversions", median(runs.map((r) => r.order.inversions)), "<=", 0],
  ["RSS under 256 connections (MB)", median(runs.map((r) => r.rss256Mb)), "<", 80],
  [
    "errors (all runs, incl. the order check)",
    errorsTotal + runs.reduce((a, r) => a + r.order.failures.length, 0),
    "<=",
    0,
  ],
];
console.log(
  `\n## issue 6 targets (the c=1 p99, CC=100 and metrics goals are issue 30's, per run): median of ${RUNS} run(s)`,
);
for (const [name, value, op, goal] of checks) {
  const ok = op === ">=" ? value >= goal : op === "<=" ? value <= goal : value < goal;
  console.log(`${ok ? "PASS" : "MISS"}  ${name.padEnd(40)} ${f(value, 3).padStart(8)}  (goal ${op} ${goal})`);
}
if (RUNS > 1) {
  // Issue 30 asks each figure met in every full run: how many runs met it.
  console.log(`\n## issue 30 goal 1: runs meeting each figure, of ${RUNS}`);
  for (const key of Object.keys(goals[0] ?? {})) {
    const met = goals.filter((g) => g[key]).length;
    record(`issue 30 runs meeting: ${key}`, met, ">=", RUNS, "runs");
  }
}
console.log(
  `RSS idle (MB): ${f(rssStartMb, 1)} after start, ${f(median(runs.map((r) => r.rssIdleMb)), 1)} between loads; CC=10 c=64 p99 ${f(cc10("p99"))} ms, mean ${f(cc10("mean"))} ms`,
);
if (profileAfterMiss) {
  // Where qp-cc0's CPU goes at 64 connections: one more queue-proxy of the same build under the profiler.
  const port = B + 21;
  await profileServer(
    "queue-proxy-c64",
    (flags) =>
      start("qp-profiled", process.execPath, [...flags, ...QP_ARGS], {
        ...qpEnv(B, port, 0, false),
        // SIGTERM ends it at once, so V8 writes the profile as it exits.
        THAW_DRAIN_QUIET_PERIOD_MS: "0",
      }),
    async (server) => {
      await waitPort(port, server);
      await wrk(port, 64, 1);
      await wrk(port, 64, DUR);
    },
  );
}
if (flags["--json"]) writeFileSync(flags["--json"], JSON.stringify({ machine, runs }, null, 2));
process.exit(0);
