// Throughput of the throttler's hot path (acquire + release) against baselines measured in the same
// run. Usage: npm run bench (after a build). THAW_BENCH_QUICK=1 shortens every measurement.
import { benchCommandLine } from "@thaw/bench-kit";
import { Breaker, RevisionThrottler } from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/throttler.mjs",
  summary:
    "@thaw/activation's throttler hot path (acquire + release) in operations per second, against baselines measured in the same run",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 100 ms per measurement instead of 400 ms",
    },
  ],
  more: "Runs against dist/ (build first).",
});

const MS = process.env.THAW_BENCH_QUICK ? 100 : 400;
const BATCH = 10_000;

/** Runs `body(BATCH)` repeatedly for about MS milliseconds; returns operations per second. */
function measure(body) {
  body(BATCH); // warm up
  body(BATCH);
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < MS) {
    body(BATCH);
    ops += BATCH;
    now = performance.now();
  }
  return (ops / (now - start)) * 1000;
}

const sink = { n: 0 };
const counter = measure((k) => {
  for (let i = 0; i < k; i++) {
    sink.n++;
    sink.n--;
  }
});

const breaker = new Breaker({ queueDepth: 10, maxConcurrency: 100, initialCapacity: 100 });
const breakerAlone = measure((k) => {
  for (let i = 0; i < k; i++) {
    if (!breaker.tryAcquire()) throw new Error("breaker full");
    breaker.release();
  }
});

function throttler(cc, backends) {
  const rt = new RevisionThrottler({ containerConcurrency: cc, random: Math.random });
  rt.updateDestinations(Array.from({ length: backends }, (_, i) => `10.0.${i >> 8}.${i & 255}:8012`));
  return rt;
}

/** Acquire + immediate release. */
function immediate(rt) {
  return measure((k) => {
    for (let i = 0; i < k; i++) {
      const t = rt.tryAcquire();
      if (!t) throw new Error("no capacity");
      rt.release(t);
    }
  });
}

/** Steady state with `depth` requests in flight: each op admits one and finishes the oldest. */
function inFlight(rt, depth) {
  const ring = new Array(depth);
  for (let i = 0; i < depth; i++) ring[i] = rt.tryAcquire();
  let head = 0;
  const ops = measure((k) => {
    for (let i = 0; i < k; i++) {
      rt.release(ring[head]);
      const t = rt.tryAcquire();
      if (!t) throw new Error("no capacity");
      ring[head] = t;
      head = head + 1 === depth ? 0 : head + 1;
    }
  });
  for (const t of ring) rt.release(t);
  return ops;
}

async function asyncTry(rt) {
  const fn = () => 1;
  const n = 200_000;
  await rt.try(undefined, fn);
  const start = performance.now();
  for (let i = 0; i < n; i++) await rt.try(undefined, fn);
  return (n / (performance.now() - start)) * 1000;
}

const fmt = (x) => `${(x / 1e6).toFixed(2)} M/s`;
const rows = [];
for (const cc of [10, 2, 0]) {
  const policy = cc === 0 ? "random choice of 2" : cc <= 3 ? "first available" : "round robin";
  const base = immediate(throttler(cc, 1));
  for (const backends of [1, 10, 1000]) {
    const imm = backends === 1 ? base : immediate(throttler(cc, backends));
    const depth = Math.min(100, backends * Math.max(cc, 1));
    const held = inFlight(throttler(cc, backends), depth);
    rows.push({ cc, policy, backends, imm, held, depth, vsOne: base / imm });
  }
}
const tryOps = await asyncTry(throttler(10, 10));

console.log(
  `baseline counter inc/dec: ${fmt(counter)}; breaker alone (tryAcquire+release): ${fmt(breakerAlone)}`,
);
console.log("throttler tryAcquire+release (ratios: x breaker-alone; slowdown vs 1 backend)");
for (const r of rows) {
  console.log(
    `  CC=${String(r.cc).padEnd(2)} ${r.policy.padEnd(18)} backends=${String(r.backends).padEnd(4)} ` +
      `immediate ${fmt(r.imm)} (${(r.imm / breakerAlone).toFixed(2)}x breaker, ${r.vsOne.toFixed(2)}x slower than 1 backend)  ` +
      `with ${r.depth} in flight ${fmt(r.held)} (${(r.held / breakerAlone).toFixed(2)}x breaker)`,
  );
}
console.log(
  `async try() (promise per call, CC=10, 10 backends): ${fmt(tryOps)} (${(tryOps / breakerAlone).toFixed(2)}x breaker)`,
);
