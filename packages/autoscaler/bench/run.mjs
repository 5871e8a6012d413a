// Benchmarks for @thaw/autoscaler, run against dist (npm run build first; `npm run bench` does).
// Every figure is printed with a ratio against a trivial baseline measured in the same run, because the
// machine is shared and absolute numbers drift. THAW_BENCH_QUICK=1 shrinks the workloads.
import { performance } from "node:perf_hooks";
import { benchCommandLine, growth, verdict } from "@thaw/bench-kit";
import {
  DEFAULT_AUTOSCALER_CONFIG,
  Decider,
  deciderSpecFor,
  MetricCollector,
  metricSpecFor,
  simulate,
} from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/run.mjs",
  summary:
    "@thaw/autoscaler's benchmarks: one decider tick over 100, 1,000 and 10,000 revisions and its growth, and `simulate` over a generated request trace, each against a trivial baseline measured in the same run",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 10 ticks and a 100,000-request trace instead of 40 and 1,000,000",
    },
  ],
  more: "Runs against dist/ (`npm run bench` in packages/autoscaler builds first).",
});

const QUICK = process.env.THAW_BENCH_QUICK === "1";
const REVISIONS = 10_000;
const TICKS = QUICK ? 10 : 40;
const REQUESTS = QUICK ? 100_000 : 1_000_000;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A deterministic pseudo-random source (LCG), so every run replays the same workload. */
function lcg(seed) {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296;
  };
}

// ---- 1. Decider tick over 100, 1,000 and 10,000 revisions ------------------------------------------
// Shaped as thaw-autoscaler's tick loop (apps/autoscaler/src/service.ts): revisions in a Map in the order
// they were added, each record holding its collection and decider; the tick walks the Map's values, reads
// the decider's metric, runs the decider with the ready pods, and keeps the averages and the new status.
// Counting ready pods (the scaler's) and applying the scale are outside the decider tick: the service's whole
// tick, reconciles included, is timed by apps/autoscaler/bench/tick.mjs.
const T0 = 1_700_000_010_000;
const config = DEFAULT_AUTOSCALER_CONFIG;
/** Median wall and CPU time of one full tick (and of the read-only baseline) over `REVISIONS` revisions. */
function tickBench(REVISIONS) {
  const collector = new MetricCollector();
  const revs = new Map();
  const rnd = lcg(42);
  for (let i = 0; i < REVISIONS; i++) {
    const key = `ns/rev-${i}`;
    const facts = { containerConcurrency: 10, annotations: {} };
    const policy = {
      decider: deciderSpecFor(config, facts),
      metric: metricSpecFor(config, facts, `rev-${i}-private`),
    };
    const metrics = collector.createOrUpdate(key, policy.metric, T0);
    const decider = new Decider(policy.decider, 1, T0);
    const status = { desiredScale: 1, excessBurstCapacity: 0 };
    revs.set(key, { key, policy, metrics, decider, status, stable: 0, panicConc: 0, readyPods: 1 });
  }
  let now = T0;
  /** Two seconds of stats per revision (as scrapes every second would record), not timed. */
  function feed() {
    for (let s = 0; s < 2; s++) {
      now += 1000;
      for (const r of revs.values()) {
        r.metrics.record(now, { averageConcurrentRequests: rnd() * 40, requestCount: rnd() * 100 });
      }
    }
  }
  /** Baseline: the same loop reading the windows only. */
  function readOnly() {
    let sink = 0;
    for (const r of revs.values()) {
      const reading = r.metrics.reading(r.decider.spec.scalingMetric, now);
      if (reading.ok) sink += reading.stable;
    }
    return sink;
  }
  /** One full decider tick: read the windows and run every decider, as the service's tick does. */
  function fullTick() {
    let sink = 0;
    for (const r of revs.values()) {
      const reading = r.metrics.reading(r.decider.spec.scalingMetric, now);
      if (reading.ok) {
        r.stable = reading.stable;
        r.panicConc = reading.panic;
      }
      const res = r.decider.scale(now, { readyPods: r.readyPods, metrics: reading.ok ? reading : null });
      if (res.scaleValid) {
        r.status = { desiredScale: res.desiredPodCount, excessBurstCapacity: res.excessBurstCapacity };
      }
      // The pods come up as asked (the scaler's part, outside the tick), so the next tick sees them.
      r.readyPods = Math.max(1, res.desiredPodCount);
      sink += res.desiredPodCount;
    }
    return sink;
  }
  for (let w = 0; w < 35; w++) feed(); // fill the 60 s windows first
  // Warm up on as many revision-ticks at every size: 30 ticks of 100 revisions sometimes left the tick
  // unoptimized when timing began, and the 100-revision point then read 4x its steady value.
  for (let w = 0; w < Math.max(30, 300_000 / REVISIONS); w++) {
    readOnly();
    fullTick();
  }
  /** Wall time and this process's CPU time of one call, in ms (CPU time is less hurt by a busy machine). */
  function timed(fn) {
    const c = process.cpuUsage();
    const a = performance.now();
    fn();
    const wall = performance.now() - a;
    const d = process.cpuUsage(c);
    return [wall, (d.user + d.system) / 1000];
  }
  const base = [];
  const tick = [];
  const baseCpu = [];
  const tickCpu = [];
  for (let t = 0; t < TICKS; t++) {
    feed();
    const [bw, bc] = timed(readOnly);
    base.push(bw);
    baseCpu.push(bc);
    const [tw, tc] = timed(fullTick);
    tick.push(tw);
    tickCpu.push(tc);
  }
  return {
    tickMs: median(tick),
    baseMs: median(base),
    tickCpu: median(tickCpu),
    baseCpu: median(baseCpu),
    maxMs: Math.max(...tick),
  };
}
const SIZES = [100, 1000, REVISIONS];
const ticks = SIZES.map((n) => [n, tickBench(n)]);
console.log(`decider: one tick over N revisions (median of ${TICKS}; wall time, CPU time in brackets)`);
for (const [n, r] of ticks) {
  console.log(
    `  ${String(n).padStart(6)} revisions: baseline (read windows) ${r.baseMs.toFixed(2)} ms [cpu ${r.baseCpu.toFixed(2)}], ` +
      `full tick ${r.tickMs.toFixed(2)} ms [cpu ${r.tickCpu.toFixed(2)}] (${(r.tickMs / r.baseMs).toFixed(2)}x baseline), max ${r.maxMs.toFixed(2)} ms`,
  );
}
const last = ticks.at(-1)[1];
// The verdict is on CPU time: on the shared machine wall time also counts the time other jobs held the core.
growth(
  "decider tick CPU by revisions",
  ticks.map(([n, r]) => [n, r.tickCpu]),
  { unit: "ms", item: "revision", itemUnit: "us", itemScale: 1000 },
);
verdict(
  `decider tick, ${REVISIONS.toLocaleString("en")} revisions (median CPU)`,
  last.tickCpu,
  "<",
  5,
  "ms",
  `wall ${last.tickMs.toFixed(2)} ms`,
);

// ---- 2. Simulator on a generated trace ----------------------------------------------------------
/** Arrivals with a rate swinging between 20 and 380 rps over 10 minutes, durations 20–500 ms. */
function generateTrace(n) {
  const r = lcg(7);
  const out = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    const rate = 200 + 180 * Math.sin((2 * Math.PI * t) / 600_000);
    t += (-Math.log(1 - r()) * 1000) / rate;
    out.push({ arrivalMs: t, durationMs: 20 + r() * 480 });
  }
  return out;
}
const trace = generateTrace(REQUESTS);
/** Baseline: one pass over the trace (the least any replay must do). */
function traceBaseline() {
  let end = 0;
  for (const q of trace) end = Math.max(end, q.arrivalMs + q.durationMs);
  return end;
}
const opts = {
  config: { ...config, containerConcurrencyTargetDefault: 10 },
  annotations: {},
  containerConcurrency: 10,
  startupDelayMs: 2000,
};
traceBaseline();
const bRuns = [];
for (let i = 0; i < 5; i++) {
  const a = performance.now();
  traceBaseline();
  bRuns.push(performance.now() - a);
}
const sRuns = [];
let result;
for (let i = 0; i < (QUICK ? 1 : 3); i++) {
  const a = performance.now();
  result = simulate(trace, opts);
  sRuns.push(performance.now() - a);
}
const simMs = median(sRuns);
const trMs = median(bRuns);
console.log(
  `simulator: ${REQUESTS} requests, ${(result.endMs / 1000).toFixed(0)} s of traffic (median of ${sRuns.length})`,
);
console.log(`  baseline (one pass over trace) ${trMs.toFixed(2)} ms`);
console.log(
  `  simulate                       ${simMs.toFixed(0)} ms   ratio ${(simMs / trMs).toFixed(0)}x baseline`,
);
console.log(`  requests per second            ${((REQUESTS * 1000) / simMs).toFixed(0)}`);
console.log(
  `  (max replicas ${result.maxReplicas}, cold starts ${result.coldStarts}, p99 queued ${result.queued.p99Ms.toFixed(0)} ms)`,
);
