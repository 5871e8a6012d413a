import type { RevisionAnnotations } from "../annotations.js";
import { MetricCollection } from "../collection.js";
import type { AutoscalerConfig } from "../config.js";
import { Decider } from "../decider.js";
import { deciderSpecFor, metricSpecFor } from "../derive.js";
import type { SksMode } from "../scale-apply.js";
import { scaleSettingsFor } from "../scale-settings.js";
import type { ScheduleWindow } from "../schedule/schedule.js";
import { TimeHeap } from "./heap.js";
import { PodPool } from "./pod-pool.js";
import { RevisionControl } from "./revision-control.js";
import type { TraceRequest } from "./trace.js";
import { WarmPlan } from "./warm-plan.js";

/** What to simulate: the autoscaler settings, the pod model and the time step. Times in ms. */
export interface SimulationOptions {
  config: AutoscalerConfig;
  annotations: RevisionAnnotations;
  /** Requests one pod serves at once; 0 = unlimited. */
  containerConcurrency: number;
  /** Time from a pod being requested to it being ready. */
  startupDelayMs: number;
  /** Decider period; Knative's is 2 s. */
  tickMs?: number;
  /** Ready pods at time 0 (0 = the revision starts scaled to zero). */
  initialReplicas?: number;
  /** Stop here; by default the run goes on until the revision settles after the last request. */
  endMs?: number;
  /** Schedule windows with their own min-scale, read at `startEpochMs` + trace time. */
  schedules?: readonly ScheduleWindow[];
  /** Wall-clock time of trace time 0 (ms since the epoch); default 0. */
  startEpochMs?: number;
  /** Trace times of wake hints (sorted), each keeping ≥ 1 pod for `hintTtlMs` without counting as load. */
  hints?: readonly number[];
  hintTtlMs?: number;
}

/** The revision at one decider tick. */
export interface TimelinePoint {
  tMs: number;
  /** Scale the autoscaler wants (−1 = unknown yet). */
  desired: number;
  /** Pods requested (starting or ready, not draining). */
  replicas: number;
  readyPods: number;
  /** Average requests in flight or queued since the previous tick. */
  concurrency: number;
  panicking: boolean;
  mode: SksMode;
}

/** Summary of queueing delays, ms. */
export interface QueueStats {
  /** Requests that waited at all. */
  waited: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** Outcome of a simulation. */
export interface SimulationResult {
  requests: number;
  endMs: number;
  timeline: TimelinePoint[];
  /** Times the revision was scaled up from zero pods. */
  coldStarts: number;
  /** Pods (starting or ready) integrated over the run: what the service cost. */
  podSeconds: number;
  /** Requests that arrived while no pod was ready. */
  coldRequests: number;
  queued: QueueStats;
  panicPeriods: { startMs: number; endMs: number }[];
  /** Times the pods went to zero. */
  scaledToZeroAtMs: number[];
  maxReplicas: number;
}

/** Any non-empty target: the simulated pods are "scraped", so an empty window reads as no data. */
const SCRAPE_TARGET = "sim";

/**
 * Replays `trace` (sorted by arrival) through the metric windows, the decider and the scale step against an
 * idealised pod model (see PodPool). Metrics are reported at the end of every second as the time-weighted
 * number of requests in flight or queued (what the activator and the queue-proxies would report together);
 * a request reaching a revision scaled to zero pokes the decider at once, as Knative's activator does.
 * Deterministic and pure.
 */
export function simulate(trace: readonly TraceRequest[], opts: SimulationOptions): SimulationResult {
  const tick = opts.tickMs ?? 2000;
  if (!(tick > 0)) throw new RangeError(`tickMs must be positive, got ${tick}`);
  const facts = { containerConcurrency: opts.containerConcurrency, annotations: opts.annotations };
  const spec = deciderSpecFor(opts.config, facts);
  const settings = scaleSettingsFor(opts.config, opts.annotations);
  const metrics = new MetricCollection(metricSpecFor(opts.config, facts, SCRAPE_TARGET));
  const initial = opts.initialReplicas ?? 0;
  const decider = new Decider(spec, initial, 0);
  const control = new RevisionControl(settings, initial);
  const pool = new PodPool(trace, opts.containerConcurrency, opts.startupDelayMs, initial);
  // Without an explicit end, stop once idle long enough for every scale-down rule to have run.
  const settleMs =
    settings.stableWindowMs +
    Math.max(settings.scaleToZeroGracePeriodMs, settings.scaleToZeroPodRetentionPeriodMs) +
    spec.scaleDownDelayMs +
    10 * tick;

  const n = trace.length;
  const rechecks = new TimeHeap();
  let now = 0;
  let secArea = 0;
  let secArrivals = 0;
  let pokeCredit = 0;
  let tickArea = 0;
  let lastTickAt = 0;
  let lastBusy = 0;
  let nextArrival = 0;
  let nextSecond = 1000;
  let nextTick = tick;
  let coldStarts = 0;
  let coldRequests = 0;
  let maxReplicas = initial;
  const timeline: TimelinePoint[] = [];
  const panicPeriods: { startMs: number; endMs: number }[] = [];
  const zeroAt: number[] = [];
  let panicStart: number | undefined;

  const plan = new WarmPlan(opts.schedules ?? [], opts.startEpochMs ?? 0);
  const hints = opts.hints ?? [];
  const hintTtl = opts.hintTtlMs ?? 0;
  let nextHint = 0;
  let podArea = 0;
  const reconcile = () => {
    control.floor = plan.floorAt(now);
    const { patch, effects } = control.reconcile(now, pool.readyCount);
    if (patch !== undefined) {
      const before = pool.liveCount;
      pool.setReplicas(patch, now);
      if (before === 0 && patch > 0) coldStarts++;
      if (before > 0 && pool.liveCount === 0) zeroAt.push(now);
      maxReplicas = Math.max(maxReplicas, patch);
    }
    for (const e of effects) if (e.kind === "recheckAfter") rechecks.push(now + e.delayMs, 0);
  };
  const decide = () => {
    const reading = metrics.reading(spec.scalingMetric, now);
    const res = decider.scale(now, { readyPods: pool.readyCount, metrics: reading.ok ? reading : null });
    if (res.scaleValid) {
      control.want = res.desiredPodCount;
      control.ebc = res.excessBurstCapacity;
    }
    if (decider.panicking && panicStart === undefined) panicStart = now;
    if (!decider.panicking && panicStart !== undefined) {
      panicPeriods.push({ startMs: panicStart, endMs: now });
      panicStart = undefined;
    }
    reconcile();
  };

  const hardEnd = opts.endMs ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const tArr = nextArrival < n ? (trace[nextArrival] as TraceRequest).arrivalMs : Number.POSITIVE_INFINITY;
    const tDone = pool.nextCompletionAt();
    const tReady = pool.nextReadyAt();
    const tRe = rechecks.peekTime();
    const tHint = nextHint < hints.length ? (hints[nextHint] as number) : Number.POSITIVE_INFINITY;
    const t = Math.min(tArr, tDone, tReady, nextSecond, nextTick, tRe, tHint);
    if (t > hardEnd) break;
    const idle = nextArrival >= n && nextHint >= hints.length && pool.inflight === 0 && pool.queued === 0;
    if (opts.endMs === undefined && idle) {
      const settled = pool.liveCount === 0 && control.want <= 0;
      if (settled || t > lastBusy + settleMs) break;
    }
    // Integrate the load (in flight + queued) up to t before anything changes it.
    const load = pool.inflight + pool.queued;
    secArea += load * (t - now);
    tickArea += load * (t - now);
    podArea += pool.liveCount * (t - now);
    now = t;
    // Same-time events: completions, then pods becoming ready, arrivals, the second's stat, the tick, re-checks.
    if (tHint === t) {
      // A wake hint: a floor of one pod for its TTL, nothing recorded as load.
      plan.hint(now, hintTtl);
      nextHint++;
      reconcile();
    } else if (tDone === t) {
      pool.completeNext(now);
      lastBusy = now;
    } else if (tReady === t) {
      if (pool.promoteNext(now)) reconcile();
    } else if (tArr === t) {
      if (pool.readyCount === 0) coldRequests++;
      pool.arrive(nextArrival++, now);
      secArrivals++;
      if (control.want === 0) {
        // The activator's cold-start poke: report this request at once and run the decider now.
        metrics.record(now, { averageConcurrentRequests: 1, requestCount: 1 });
        pokeCredit = 1;
        decide();
      }
    } else if (nextSecond === t) {
      // The poke already reported one request; the first report after it leaves that one out.
      const avg = Math.max(0, secArea / 1000 - pokeCredit);
      const count = Math.max(0, secArrivals - pokeCredit);
      if (pool.readyCount > 0 || avg > 0 || count > 0) {
        metrics.record(now, { averageConcurrentRequests: avg, requestCount: count });
      }
      pokeCredit = 0;
      secArea = 0;
      secArrivals = 0;
      nextSecond += 1000;
    } else if (nextTick === t) {
      decide();
      timeline.push({
        tMs: now,
        desired: control.want,
        replicas: pool.liveCount,
        readyPods: pool.readyCount,
        concurrency: now > lastTickAt ? tickArea / (now - lastTickAt) : load,
        panicking: decider.panicking,
        mode: control.mode,
      });
      tickArea = 0;
      lastTickAt = now;
      nextTick += tick;
    } else {
      rechecks.pop();
      reconcile();
    }
  }
  if (panicStart !== undefined) panicPeriods.push({ startMs: panicStart, endMs: now });
  return {
    requests: n,
    endMs: now,
    timeline,
    coldStarts,
    podSeconds: podArea / 1000,
    coldRequests,
    queued: queueStats(pool.waits),
    panicPeriods,
    scaledToZeroAtMs: zeroAt,
    maxReplicas,
  };
}

function queueStats(waits: Float64Array): QueueStats {
  const n = waits.length;
  if (n === 0) return { waited: 0, p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
  const sorted = Float64Array.from(waits).sort();
  let waited = 0;
  let sum = 0;
  for (const w of sorted) {
    if (w > 0) waited++;
    sum += w;
  }
  const pct = (p: number) => sorted[Math.min(n - 1, Math.ceil(p * n) - 1)] as number;
  return { waited, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: sorted[n - 1] as number, meanMs: sum / n };
}
