// What the three overload tests (nginx + hook + activator, `thaw up`, the edge) share: their three cases,
// the `thaw up` service lines for them, one cold burst measured end to end, and the promises checked on
// it. Re-exported by overload.mjs (types: overload.d.ts).
import { join } from "node:path";
import { fireBurst, OVERLOAD_APP, openGateWhenHeld } from "./overload.mjs";
import { sampleRss } from "./rss.mjs";

/** The queue bound of the `bounded` case: the part of a burst beyond it gets 503 + Retry-After. */
export const OVERLOAD_SMALL_QUEUE = 100;

/**
 * The cases, as Knative's TestActivatorOverload varies them: one request at a time, four, and a small queue.
 * `workMs` is the app's time per request. The bounded case's is long enough (3 pods x 4 at 200 ms drain 60
 * a second) that its queue overflows however slowly a loaded machine delivers the burst: at 20 ms the pods
 * drained faster than nginx forwarded, and all 1,000 got 200.
 */
export const OVERLOAD_CASES = Object.freeze([
  { name: "cc1", containerConcurrency: 1, maxQueue: 10_000, workMs: 20 },
  { name: "cc4", containerConcurrency: 4, maxQueue: 10_000, workMs: 20 },
  { name: "bounded", containerConcurrency: 4, maxQueue: OVERLOAD_SMALL_QUEUE, workMs: 200 },
]);

/**
 * `thaw up` config lines under `services:` for each case: the overload app at max-scale 3 with
 * target-burst-capacity 0 (the autoscaler says "serve" as soon as it wants a pod), each app's start gate
 * file `<gateDir>/<name>.open`.
 * @param {string} gateDir
 * @returns {string[]}
 */
export function overloadUpServices(gateDir) {
  return OVERLOAD_CASES.flatMap((s) => [
    `  - name: ${s.name}`,
    `    hosts: [${s.name}.localhost]`,
    `    containerConcurrency: ${s.containerConcurrency}`,
    `    maxQueue: ${s.maxQueue}`,
    "    timeoutSeconds: 60",
    "    autoscaling: { max-scale: 3, target-burst-capacity: 0 }",
    "    run:",
    `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(OVERLOAD_APP)}]`,
    `      env: { STARTUP_DELAY_MS: "500", WORK_MS: "${s.workMs}", START_GATE_FILE: ${JSON.stringify(join(gateDir, `${s.name}.open`))} }`,
  ]);
}

/**
 * Fires one burst and opens the pods' start gate once `held()` reaches `heldCount` (or after `maxWaitMs`),
 * the RSS of `rss()`'s groups sampled from before the burst until 300 ms after its last answer.
 * @param {import("./overload.d.ts").ColdBurstOptions} o
 * @returns {Promise<import("./overload.d.ts").ColdBurstRun>}
 */
export async function measureColdBurst(o) {
  const sampler = sampleRss(o.rss);
  const t0 = performance.now();
  const burst = fireBurst({
    port: o.port,
    host: o.host,
    count: o.count,
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ...(o.neverArrived === undefined ? {} : { neverArrived: o.neverArrived }),
  });
  const gate = await openGateWhenHeld({
    file: o.gateFile,
    held: o.held,
    count: o.heldCount ?? o.count,
    ...(o.maxWaitMs === undefined ? {} : { maxWaitMs: o.maxWaitMs }),
  });
  const results = await burst;
  const ms = Math.round(performance.now() - t0);
  // The pods' RSS after the burst, once their answers are out.
  await new Promise((r) => setTimeout(r, 300));
  return { results, ms, heldWhenGateOpened: gate.held, rss: sampler.stop() };
}

/** What {@link burstLosses} gives when every promise is kept: nothing lost, nothing refused by a pod. */
export const NO_LOSSES = Object.freeze({
  errors: 0,
  podQueueFull: 0,
  bare503: 0,
  otherStatuses: Object.freeze([]),
});

/**
 * The most requests any pod's app had at once, over the burst's 200 answers (the overload app reports it).
 * @param {import("./overload.d.ts").BurstResult[]} results
 */
export function maxInFlightAtApp(results) {
  return Math.max(
    ...results
      .filter((r) => r.status === 200)
      .map((r) => {
        try {
          return Number(JSON.parse(r.body).maxInFlight);
        } catch {
          // A 200 that is not the app's answer: say which request, and what came instead.
          throw new Error(
            `request ${r.i} got 200 after ${Math.round(r.ms)} ms with a body that is not the app's JSON: ${JSON.stringify(r.body.slice(0, 200))}`,
          );
        }
      }),
  );
}
