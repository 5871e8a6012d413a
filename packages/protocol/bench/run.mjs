/**
 * `npm run bench`: costs of @thaw/protocol's hot paths as ratios to a baseline measured in the same run
 * (absolute numbers move with the machine; ratios move less). Runs against dist/, so build first.
 */

import { benchCommandLine } from "@thaw/bench-kit";
import { ManualClock } from "@thaw/clock/testing";
import {
  Drainer,
  decodeStat,
  encodeStat,
  isHealthCheckRequest,
  isProbe,
  QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
} from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/run.mjs",
  summary:
    "@thaw/protocol's hot paths (the stat codec against JSON, the probe and health-check classifiers against a plain headers.get, the drainer) as ratios to a baseline measured in the same run",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 3 rounds of a tenth of the calls instead of 7",
    },
  ],
  more: "Runs against dist/ (build first).",
});

const quick = process.env.THAW_BENCH_QUICK === "1";
const ROUNDS = quick ? 3 : 7;

/** Median ns per call of `fn` over ROUNDS rounds of `n` calls. */
function measure(fn, n) {
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    samples.push(((performance.now() - t0) * 1e6) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

async function measureAsync(fn, n) {
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    samples.push(((performance.now() - t0) * 1e6) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const rows = [];
function report(name, ns, baselineName, baselineNs) {
  rows.push({ name, ns, baselineName, baselineNs, ratio: ns / baselineNs });
}

// Stat codec vs JSON of the same object (the obvious alternative wire format).
const stat = {
  podName: "hello-00001-deployment-7d9c8b6f5-x2x9z",
  averageConcurrentRequests: 3.25,
  averageProxiedConcurrentRequests: 0.5,
  requestCount: 41.5,
  proxiedRequestCount: 2,
  processUptime: 1234.5,
  timestamp: 1_700_000_000,
};
const N = quick ? 20_000 : 200_000;
const encoded = encodeStat(stat);
const json = JSON.stringify(stat);
const jsonEncode = measure(() => JSON.stringify(stat), N);
report(
  "encodeStat",
  measure(() => encodeStat(stat), N),
  "JSON.stringify",
  jsonEncode,
);
const jsonDecode = measure(() => JSON.parse(json), N);
report(
  "decodeStat",
  measure(() => decodeStat(encoded), N),
  "JSON.parse",
  jsonDecode,
);

// Classification on every request vs one plain header read.
const headers = new Headers({ "user-agent": "Mozilla/5.0", accept: "*/*", "x-forwarded-for": "10.0.0.1" });
const oneGet = measure(() => headers.get("user-agent"), N);
report(
  "isProbe",
  measure(() => isProbe(headers), N),
  "headers.get",
  oneGet,
);
report(
  "isHealthCheckRequest (QP prefixes)",
  measure(() => isHealthCheckRequest(headers, QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES), N),
  "headers.get",
  oneGet,
);

// Drainer in front of a handler vs calling the handler directly.
const req = new Request("http://x/", { headers });
const res = new Response("ok");
const next = () => res;
const drainer = new Drainer({
  clock: new ManualClock(),
  healthCheckUserAgentPrefixes: QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
});
const M = quick ? 10_000 : 100_000;
const direct = await measureAsync(async () => next(req), M);
report(
  "Drainer.handle (not draining)",
  await measureAsync(() => drainer.handle(req, next), M),
  "await next(req)",
  direct,
);

console.log(`@thaw/protocol bench (median of ${ROUNDS} rounds${quick ? ", quick" : ""}; ns per call)`);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(36)} ${r.ns.toFixed(1).padStart(8)} ns   ${r.ratio.toFixed(2).padStart(6)}x ${r.baselineName} (${r.baselineNs.toFixed(1)} ns)`,
  );
}
console.log(`Stat size: ${encoded.length} bytes protobuf vs ${json.length} bytes JSON`);
