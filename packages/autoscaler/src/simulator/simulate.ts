import type { RevisionAnnotations } from "../annotations.js";
import { MetricCollector } from "../collector.js";
import type { AutoscalerConfig } from "../config.js";
import { Decider } from "../decider.js";
import { deciderSpecFor, metricSpecFor } from "../derive.js";
import type { ActiveStatus, SksMode } from "../scale-apply.js";
import { activeThreshold, applyScale, nextActiveCondition, sksModeFor } from "../scale-apply.js";
import { scaleSettingsFor } from "../scale-settings.js";
import { TimeHeap } from "./heap.js";
import type { TraceRequest } from "./trace.js";

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
  /** Requests that arrived while no pod was ready. */
  coldRequests: number;
  queued: QueueStats;
  panicPeriods: { startMs: number; endMs: number }[];
  /** Times the pods went to zero. */
  scaledToZeroAtMs: number[];
  maxReplicas: number;
}

interface Pod {
  id: number;
  readyAt: number;
  inflight: number;
  state: "starting" | "ready" | "draining" | "gone";
}

const KEY = "sim";
const LONG_AGO = -1e12;

/**
 * Replays `trace` (sorted by arrival) through the collector, the decider and the scale step against an
 * idealised pod model: pods become ready `startupDelayMs` after being requested, serve up to
 * `containerConcurrency` requests each, and requests wait in one FIFO queue while no pod has room. Metrics
 * are reported every second as the time-weighted number of requests in flight or queued (what the activator
 * and queue-proxies would report together); a request reaching a revision scaled to zero pokes the decider.
 * Deterministic and pure.
 */
export function simulate(trace: readonly TraceRequest[], opts: SimulationOptions): SimulationResult {
  const tick = opts.tickMs ?? 2000;
  if (!(tick > 0)) throw new RangeError(`tickMs must be positive, got ${tick}`);
  const cc = opts.containerConcurrency;
  const facts = { containerConcurrency: cc, annotations: opts.annotations };
  const spec = deciderSpecFor(opts.config, facts);
  const settings = scaleSettingsFor(opts.config, opts.annotations);
  const collector = new MetricCollector();
  collector.createOrUpdate(KEY, metricSpecFor(opts.config, facts, KEY), 0);
  const initial = opts.initialReplicas ?? 0;
  const decider = new Decider(spec, initial, 0);
  const settleMs =
    settings.stableWindowMs +
    Math.max(settings.scaleToZeroGracePeriodMs, settings.scaleToZeroPodRetentionPeriodMs) +
    spec.scaleDownDelayMs +
    10 * tick;

  const pods: Pod[] = [];
  let ready: Pod[] = [];
  let starting: Pod[] = [];
  const startQueue: Pod[] = [];
  let startHead = 0;
  let freeSlots = 0;
  let rr = 0;
  for (let i = 0; i < initial; i++) {
    const p: Pod = { id: pods.length, readyAt: 0, inflight: 0, state: "ready" };
    pods.push(p);
    ready.push(p);
    freeSlots += cc;
  }
  let targetReplicas = initial;
  let active: ActiveStatus = initial > 0 ? "True" : "False";
  let activeSince = initial > 0 ? 0 : LONG_AGO;
  let initialized = true;
  let mode: SksMode = initial > 0 ? "Serve" : "Proxy";
  let proxySince: number | undefined = initial > 0 ? undefined : LONG_AGO;
  let want = initial;
  let ebc = 0;

  const n = trace.length;
  const waits = new Float64Array(n);
  const queue: number[] = [];
  let qHead = 0;
  const completions = new TimeHeap();
  const rechecks = new TimeHeap();
  let inflight = 0;
  let now = 0;
  let load = 0;
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

  const advance = (t: number) => {
    const dt = t - now;
    if (dt > 0) {
      secArea += load * dt;
      tickArea += load * dt;
      now = t;
    }
  };
  const roomy = (p: Pod) => cc === 0 || p.inflight < cc;
  const dispatch = (): void => {
    while (qHead < queue.length && ready.length > 0 && (cc === 0 || freeSlots > 0)) {
      let pod: Pod | undefined;
      for (let k = 0; k < ready.length; k++) {
        const p = ready[(rr + k) % ready.length] as Pod;
        if (roomy(p)) {
          pod = p;
          rr = (rr + k + 1) % ready.length;
          break;
        }
      }
      if (!pod) return;
      const idx = queue[qHead++] as number;
      const req = trace[idx] as TraceRequest;
      waits[idx] = now - req.arrivalMs;
      pod.inflight++;
      inflight++;
      if (cc > 0) freeSlots--;
      completions.push(now + req.durationMs, pod.id);
    }
    if (qHead > 4096 && qHead * 2 > queue.length) {
      queue.splice(0, qHead);
      qHead = 0;
    }
  };
  const setReplicas = (target: number) => {
    const live = ready.length + starting.length;
    if (target > live) {
      if (live === 0) coldStarts++;
      for (let i = live; i < target; i++) {
        const p: Pod = {
          id: pods.length,
          readyAt: now + opts.startupDelayMs,
          inflight: 0,
          state: "starting",
        };
        pods.push(p);
        starting.push(p);
        startQueue.push(p);
      }
    } else if (target < live) {
      let drop = live - target;
      while (drop > 0 && starting.length > 0) {
        (starting.pop() as Pod).state = "gone";
        drop--;
      }
      if (drop > 0) {
        // Drain the least busy pods first; their in-flight requests still finish.
        const order = [...ready].sort((a, b) => a.inflight - b.inflight);
        const victims = new Set(order.slice(0, drop));
        for (const p of victims) {
          if (cc > 0) freeSlots -= cc - p.inflight;
          p.state = p.inflight > 0 ? "draining" : "gone";
        }
        ready = ready.filter((p) => !victims.has(p));
        rr = 0;
      }
      if (ready.length + starting.length === 0) zeroAt.push(now);
    }
    targetReplicas = target;
    maxReplicas = Math.max(maxReplicas, target);
  };
  const reconcile = () => {
    const state = {
      currentReplicas: targetReplicas,
      active,
      activeSinceMs: activeSince,
      scaleTargetInitialized: initialized,
      reachable: true,
      sksMode: mode,
      proxySinceMs: proxySince,
    };
    const input = { now, desired: want, state, settings };
    let step = applyScale(input);
    // The simulated activator always answers its probe.
    if (step.kind === "probeActivator") step = applyScale({ ...input, activatorProbe: true });
    if (step.kind !== "decided") return;
    if (step.patchReplicas !== undefined) setReplicas(step.patchReplicas);
    for (const e of step.effects) if (e.kind === "recheckAfter") rechecks.push(now + e.delayMs, 0);
    const m = sksModeFor(step.scale, ebc, active);
    if (m !== mode) {
      mode = m;
      proxySince = m === "Proxy" ? now : undefined;
    }
    const minReady = activeThreshold(settings, { reachable: true, scaleTargetInitialized: initialized });
    if (ready.length >= minReady) initialized = true;
    const cond = nextActiveCondition(active, step.scale, ready.length, minReady);
    if (cond.status !== active) {
      active = cond.status;
      activeSince = now;
    }
  };
  const decide = () => {
    const reading = collector.readingFor(KEY, spec.scalingMetric, now);
    const res = decider.scale(now, { readyPods: ready.length, metrics: reading.ok ? reading : null });
    if (res.scaleValid) {
      want = res.desiredPodCount;
      ebc = res.excessBurstCapacity;
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
    const tDone = completions.peekTime();
    const tReady =
      startHead < startQueue.length ? (startQueue[startHead] as Pod).readyAt : Number.POSITIVE_INFINITY;
    const tRe = rechecks.peekTime();
    const t = Math.min(tArr, tDone, tReady, nextSecond, nextTick, tRe);
    if (t > hardEnd) break;
    const idle = nextArrival >= n && inflight === 0 && qHead >= queue.length;
    if (idle && opts.endMs === undefined) {
      const settled = ready.length + starting.length === 0 && want <= 0;
      if (settled || t > lastBusy + settleMs) break;
    }
    advance(t);
    if (tDone === t) {
      const pod = pods[completions.pop()] as Pod;
      pod.inflight--;
      inflight--;
      load--;
      lastBusy = now;
      if (pod.state === "ready" && cc > 0) freeSlots++;
      if (pod.state === "draining" && pod.inflight === 0) pod.state = "gone";
      dispatch();
    } else if (tReady === t) {
      const pod = startQueue[startHead++] as Pod;
      if (pod.state === "starting") {
        pod.state = "ready";
        starting = starting.filter((p) => p !== pod);
        ready.push(pod);
        freeSlots += cc;
        dispatch();
        reconcile();
      }
    } else if (tArr === t) {
      const idx = nextArrival++;
      if (ready.length === 0) coldRequests++;
      queue.push(idx);
      load++;
      secArrivals++;
      dispatch();
      if (want === 0) {
        // The activator's cold-start poke: report this request at once and run the decider now.
        collector.record(KEY, now, { averageConcurrentRequests: 1, requestCount: 1 });
        pokeCredit = 1;
        decide();
      }
    } else if (nextSecond === t) {
      const avg = Math.max(0, secArea / 1000 - pokeCredit);
      const count = Math.max(0, secArrivals - pokeCredit);
      if (ready.length > 0 || avg > 0 || count > 0) {
        collector.record(KEY, now, { averageConcurrentRequests: avg, requestCount: count });
      }
      pokeCredit = 0;
      secArea = 0;
      secArrivals = 0;
      nextSecond += 1000;
    } else if (nextTick === t) {
      decide();
      timeline.push({
        tMs: now,
        desired: want,
        replicas: ready.length + starting.length,
        readyPods: ready.length,
        concurrency: now > lastTickAt ? tickArea / (now - lastTickAt) : load,
        panicking: decider.panicking,
        mode,
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
    coldRequests,
    queued: queueStats(waits),
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
