import {
  activeThreshold,
  applyScale,
  Decider,
  type DeciderStatus,
  MetricCollection,
  nextActiveCondition,
  type ScaleSettings,
  type ScaleState,
  type ScaleStep,
  scaleScrapedStats,
  shouldPoke,
  sksModeFor,
} from "@thaw/autoscaler";
import type { Clock, TimerHandle } from "@thaw/clock";
import { emptyStat, type ProblemNote, type Stat } from "@thaw/protocol";
import { type AutoscalerEvent, EventHub, type RevisionStatus, sameStatus } from "./events.js";
import { type Logger, silentLogger } from "./logger.js";
import { samplePods } from "./pod-sample.js";
import type { RevisionPolicy } from "./policy.js";
import { keyOf, type RevisionKey } from "./revision.js";
import type { Scaler } from "./scalers/scaler.js";
import type { ScrapeResult } from "./scrape.js";
import { httpScrapeStat } from "./scrape-http.js";
import type { PushedStat } from "./stat-ingest.js";
import { warmAt } from "./warm.js";

/** The mark of a reconcile running synchronously (nothing to wait for). */
const BUSY: Promise<void> = Promise.resolve();

type DecidedStep = Extract<ScaleStep, { kind: "decided" }>;

/** Knative's decider tick and scrape period (e.1). */
export const DECIDER_TICK_MS = 2000;
export const SCRAPE_PERIOD_MS = 1000;

/** Options of {@link AutoscalerService}. */
export interface AutoscalerServiceOptions {
  scaler: Scaler;
  clock: Clock;
  /** [0, 1); chooses the pods to scrape. */
  random?: () => number;
  /** Fetches one pod's Stat (default: {@link httpScrapeStat}, the queue-proxy's keep-alive HTTP/1.1 client). */
  scrape?: (url: string) => Promise<ScrapeResult>;
  /** P3: does the activator answer for this revision? Scale to zero waits for it (default: yes, in process). */
  probeActivator?: (rev: RevisionKey) => Promise<boolean>;
  logger?: Logger;
  tickMs?: number;
  scrapeMs?: number;
}

interface Revision {
  rev: RevisionKey;
  key: string;
  policy: RevisionPolicy;
  /** The revision's metric windows, held here so the tick and the scrapes need no lookup by key. */
  metrics: MetricCollection;
  decider: Decider;
  status: DeciderStatus;
  scale: ScaleState;
  stable: number;
  panicConc: number;
  lastColdStartMs: number | null;
  coldStartBegan: number | undefined;
  pokedAt: number | undefined;
  readyPods: number;
  scraping: boolean;
  reconciling: Promise<void> | undefined;
  again: boolean;
  recheck: { at: number; handle: TimerHandle } | undefined;
  unsubscribe: () => void;
  /** The status last published; a tick publishes only when it differs. */
  published: RevisionStatus | undefined;
  scaleError: string | null;
  podProblem: string | null;
  podProblemSeverity: "failing" | "waiting" | null;
  scrapeErrors: number;
  /** Until when a wake hint keeps the revision at ≥ 1 pod (epoch ms). */
  hintUntil: number | undefined;
}

/** One revision's decider outputs and counters, as the Prometheus metrics read them (docs/metrics.md). */
export interface RevisionGauges {
  namespace: string;
  name: string;
  /** The decider's desired pod count (before the scale is applied: max-scale, scale-to-zero grace). */
  desiredPods: number;
  /** Replicas asked of the scaler. */
  requestedPods: number;
  readyPods: number;
  panic: boolean;
  excessBurstCapacity: number;
  stableConcurrency: number;
  panicConcurrency: number;
  /** The decider's target per pod. */
  targetConcurrency: number;
  /** Pod scrapes that failed, since the revision was added. */
  scrapeErrors: number;
}

/**
 * The autoscaler of one process: per revision, metric windows fed by pushed stats and by scraping
 * queue-proxies every second and a KPA Decider ticking every 2 s (at once on a cold-start poke); Knative's scale
 * application, and a scaler that makes the replicas real. Publishes scale events and revision status.
 */
export class AutoscalerService {
  readonly #o: Required<Omit<AutoscalerServiceOptions, "logger">> & { logger: Logger };
  readonly #revs = new Map<string, Revision>();
  readonly #events = new EventHub<AutoscalerEvent>();
  #timers: TimerHandle[] = [];
  #running = false;

  constructor(options: AutoscalerServiceOptions) {
    this.#o = {
      random: Math.random,
      scrape: (url) => httpScrapeStat(url),
      probeActivator: async () => true,
      logger: silentLogger,
      tickMs: DECIDER_TICK_MS,
      scrapeMs: SCRAPE_PERIOD_MS,
      ...options,
    };
  }

  /** Subscribes to scale, cold-start and status events; returns the unsubscribe. */
  on(listener: (e: AutoscalerEvent) => void): () => void {
    return this.#events.on(listener);
  }

  /**
   * Starts scaling a revision. It begins scaled to zero, as if it had been idle (unless min-scale says
   * otherwise), so the first request shows a cold start; or, with `running` > 0 (pods that outlived a
   * restart and are adopted, e.g. containers), active at that count, as Knative's autoscaler restarts:
   * its decider starts in panic mode at that count (1 is kept by the Active condition), so nothing is
   * scaled down before a stable window has seen the load.
   */
  addRevision(rev: RevisionKey, policy: RevisionPolicy, running = 0): void {
    const key = keyOf(rev);
    if (this.#revs.has(key)) throw new Error(`revision ${key} is already being scaled`);
    const now = this.#o.clock.now();
    const metrics = new MetricCollection(policy.metric);
    const decider = new Decider(policy.decider, running, now);
    // What a tick over an idle revision says: desired 0 (or the adopted count while panicking), and the
    // burst capacity of zero ready pods.
    const idle = decider.scale(now, { readyPods: 0, metrics: { stable: 0, panic: 0 } });
    const r: Revision = {
      rev: { namespace: rev.namespace, name: rev.name },
      key,
      policy,
      metrics,
      decider,
      status: { desiredScale: idle.desiredPodCount, excessBurstCapacity: idle.excessBurstCapacity },
      scale: {
        currentReplicas: running,
        active: running > 0 ? "True" : "False",
        activeSinceMs: now,
        // Starting from zero on purpose: initial-scale is not forced at start.
        scaleTargetInitialized: true,
        reachable: true,
        sksMode: "Proxy",
        proxySinceMs: now,
      },
      stable: 0,
      panicConc: 0,
      lastColdStartMs: null,
      coldStartBegan: undefined,
      pokedAt: undefined,
      readyPods: 0,
      scraping: false,
      reconciling: undefined,
      again: false,
      recheck: undefined,
      unsubscribe: () => {},
      published: undefined,
      scaleError: null,
      podProblem: null,
      podProblemSeverity: null,
      scrapeErrors: 0,
      hintUntil: undefined,
    };
    this.#revs.set(key, r);
    r.unsubscribe = this.#o.scaler.subscribe(r.rev, () => this.#reconcileSoon(r));
    this.#reconcileSoon(r);
  }

  /**
   * Replaces a revision's policy (a Deployment's annotations changed): the decider and the metric windows
   * take the new spec from now on; the decider's state (panic, delay window) is kept.
   */
  updatePolicy(rev: RevisionKey, policy: RevisionPolicy): boolean {
    const r = this.#revs.get(keyOf(rev));
    if (!r) return false;
    r.policy = policy;
    r.decider.update(policy.decider);
    r.metrics.update(policy.metric, this.#o.clock.now());
    this.#reconcileSoon(r);
    return true;
  }

  /** Stops scaling a revision (its pods are left to the scaler). */
  removeRevision(rev: RevisionKey): boolean {
    const r = this.#revs.get(keyOf(rev));
    if (!r) return false;
    r.unsubscribe();
    if (r.recheck) this.#o.clock.clearTimeout(r.recheck.handle);
    return this.#revs.delete(r.key);
  }

  /** An activator's first byte of a cold start (its FirstByteNote): published for the dashboard's record. */
  firstByte(note: { namespace: string; name: string; at: number }): boolean {
    if (!this.#revs.has(keyOf(note))) return false;
    this.#events.emit({ type: "first-byte", namespace: note.namespace, name: note.name, at: note.at });
    return true;
  }

  /** Records pushed stats (activators' WireStatMessages); a load report for a revision at zero pokes it. */
  record(stats: readonly PushedStat[]): { unknown: number } {
    const now = this.#o.clock.now();
    let unknown = 0;
    for (const { rev, stat } of stats) {
      const r = this.#revs.get(keyOf(rev));
      if (!r) {
        unknown++;
        continue;
      }
      r.metrics.recordStat(stat, now);
      const poke = shouldPoke(r.status.desiredScale, stat);
      if (poke) {
        r.pokedAt = now;
        if (r.readyPods === 0) r.coldStartBegan ??= now;
      }
      // Knative runs the decider at once only for load at desired 0. Load reported while no pod is ready runs
      // it too: the burst a hook holds is reported 200 ms after the activation's poke, and its pods are asked
      // for then, not at a tick up to 2 s later while the first pod starts (issue 28.1, docs/demand.md).
      if (poke || (r.readyPods === 0 && stat.averageConcurrentRequests > 0)) this.#tick(r, now);
    }
    return { unknown };
  }

  /**
   * Someone is waiting for a revision (the activator's `/v1/activate` or a held request): counts as one
   * concurrent request, as the activator's cold-start poke does (d.5), so a revision at zero scales up now.
   */
  poke(rev: RevisionKey): boolean {
    const stat = { ...emptyStat("poke"), averageConcurrentRequests: 1, requestCount: 1 };
    return this.record([{ rev, stat }]).unknown === 0;
  }

  /**
   * A wake hint: keep the revision at ≥ 1 pod for `ttlMs` from now (a later hint extends, never shortens).
   * Not load: nothing enters the metric windows. Returns until when, or undefined for an unknown revision.
   */
  hint(rev: RevisionKey, ttlMs: number): number | undefined {
    const r = this.#revs.get(keyOf(rev));
    if (!r) return undefined;
    const until = this.#o.clock.now() + ttlMs;
    r.hintUntil = Math.max(r.hintUntil ?? 0, until);
    this.#reconcileSoon(r);
    return r.hintUntil;
  }

  /**
   * What the scaler found wrong with a revision's pods (`undefined`: nothing any more): published as a
   * `problem` event and as the status's `podProblem`. Returns false for an unknown revision.
   */
  reportProblem(
    rev: RevisionKey,
    problem: { severity: "failing" | "waiting"; message: string } | undefined,
  ): boolean {
    const r = this.#revs.get(keyOf(rev));
    if (!r) return false;
    const message = problem?.message ?? null;
    if (message === r.podProblem) return true;
    r.podProblem = message;
    r.podProblemSeverity = problem?.severity ?? null;
    const at = this.#o.clock.now();
    this.#events.emit({ type: "problem", ...r.rev, severity: problem?.severity ?? null, message, at });
    const status = this.#statusOf(r);
    r.published = status;
    this.#events.emit({ type: "status", status, at });
    return true;
  }

  /** What is wrong with each revision's pods now (revisions with nothing wrong are left out). */
  problems(): ProblemNote[] {
    return [...this.#revs.values()]
      .filter((r) => r.podProblem !== null)
      .map((r) => ({
        type: "problem" as const,
        ...r.rev,
        severity: r.podProblemSeverity,
        message: r.podProblem,
      }));
  }

  /** The status of every revision (contract 4 shape). */
  revisions(): RevisionStatus[] {
    return [...this.#revs.values()].map((r) => this.#statusOf(r));
  }

  /** Every revision's decider outputs, ready pods and scrape errors (read on each Prometheus scrape). */
  gauges(): RevisionGauges[] {
    return [...this.#revs.values()].map((r) => ({
      namespace: r.rev.namespace,
      name: r.rev.name,
      desiredPods: r.status.desiredScale,
      requestedPods: r.scale.currentReplicas ?? 0,
      // Read from the scaler, not the last reconcile's copy: a scrape right after a pod turned ready (the
      // reconcile that notices it may still be awaiting a scale request) must not show it missing.
      readyPods: this.#readyCount(r),
      panic: r.decider.panicking,
      excessBurstCapacity: r.status.excessBurstCapacity,
      stableConcurrency: r.stable,
      panicConcurrency: r.panicConc,
      targetConcurrency: r.policy.decider.targetValue,
      scrapeErrors: r.scrapeErrors,
    }));
  }

  /** The status of one revision. */
  status(rev: RevisionKey): RevisionStatus | undefined {
    const r = this.#revs.get(keyOf(rev));
    return r ? this.#statusOf(r) : undefined;
  }

  /** The decider's target per pod for a revision (the page charts load against it). */
  targetOf(rev: RevisionKey): number | undefined {
    return this.#revs.get(keyOf(rev))?.policy.decider.targetValue;
  }

  /** Starts the scrape (1 s) and decider (2 s) loops. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    const scrapeLoop = () => {
      if (!this.#running) return;
      const now = this.#o.clock.now();
      for (const r of this.#revs.values()) void this.#scrapeRound(r, now);
      this.#timers[0] = this.#o.clock.setTimeout(scrapeLoop, this.#o.scrapeMs);
    };
    const tickLoop = () => {
      if (!this.#running) return;
      const now = this.#o.clock.now();
      for (const r of this.#revs.values()) this.#tick(r, now);
      this.#timers[1] = this.#o.clock.setTimeout(tickLoop, this.#o.tickMs);
    };
    this.#timers = [
      this.#o.clock.setTimeout(scrapeLoop, this.#o.scrapeMs),
      this.#o.clock.setTimeout(tickLoop, this.#o.tickMs),
    ];
  }

  /** Stops the loops and waits for reconciles in flight; pods are left to the scaler's own `close`. */
  async stop(): Promise<void> {
    this.#running = false;
    for (const t of this.#timers) this.#o.clock.clearTimeout(t);
    this.#timers = [];
    for (const r of this.#revs.values()) {
      if (r.recheck) this.#o.clock.clearTimeout(r.recheck.handle);
      r.recheck = undefined;
      r.unsubscribe();
    }
    await Promise.all([...this.#revs.values()].map((r) => r.reconciling));
  }

  async #scrapeRound(r: Revision, now: number): Promise<void> {
    if (!r.policy.metric.scrapeTarget || r.scraping) return;
    const pods = this.#o.scaler.pods(r.rev).filter((p) => p.ready && p.metricsUrl);
    // No ready pod to ask: nothing is recorded (Knative's collector skips the empty scrape), so what the
    // holders report (activator, hook) is the whole reading. A zero here would dilute a burst held at zero
    // into the windows' idle seconds, and the scale-up would come a panic window late (issue 28.1).
    if (pods.length === 0) return;
    r.scraping = true;
    try {
      const sample = samplePods(pods, now, r.policy.metric.stableWindowMs, this.#o.random);
      const results = await Promise.all(sample.map((p) => this.#o.scrape(p.metricsUrl as string)));
      const stats: Stat[] = [];
      for (const res of results) {
        if (res.ok) stats.push(res.stat);
        else {
          r.scrapeErrors++;
          this.#o.logger.warn("scrape failed", { revision: r.key, error: res.error });
        }
      }
      if (stats.length > 0 && this.#revs.get(r.key) === r) {
        r.metrics.record(now, scaleScrapedStats(stats, pods.length));
      }
    } finally {
      r.scraping = false;
    }
  }

  /** The decider's step, then the reconcile it asks for (synchronous unless the scaler or the probe is awaited). */
  #tick(r: Revision, now: number): void {
    let reading = r.metrics.reading(r.decider.spec.scalingMetric, now);
    const readyPods = this.#readyCount(r);
    // A whole stable window with no ready pod to scrape and nothing held (holders report while they hold):
    // the load is zero, not unknown. Knative reads "no data" and keeps the last desired scale, which would
    // keep pods that never become ready (a crash loop) asked for after their requests gave up; with a zero
    // the decider comes down and the activation deadline scales them to zero.
    if (!reading.ok && reading.error === "no-data" && readyPods === 0)
      reading = { ok: true, stable: 0, panic: 0 };
    if (reading.ok) {
      r.stable = reading.stable;
      r.panicConc = reading.panic;
    }
    const res = r.decider.scale(now, {
      readyPods,
      metrics: reading.ok ? reading : null,
    });
    if (res.scaleValid) {
      // Updated in place: a new object per revision per tick would live until the next tick (old-space garbage).
      r.status.desiredScale = res.desiredPodCount;
      r.status.excessBurstCapacity = res.excessBurstCapacity;
    }
    this.#reconcile(r);
  }

  /** Counted without a filtered copy of the pod list: this runs twice per revision per tick. */
  #readyCount(r: Revision): number {
    let ready = 0;
    for (const p of this.#o.scaler.pods(r.rev)) if (p.ready) ready++;
    return ready;
  }

  #reconcileSoon(r: Revision): void {
    this.#reconcile(r);
  }

  /**
   * Serialised per revision: a reconcile asked for while one runs runs once more afterwards. Rounds that
   * await nothing (no activator probe, no scale request: most ticks) finish here synchronously, so a tick
   * over N revisions holds no N promises alive until they settle (issue 30.5: that live set was promoted
   * and collected as old space, and the tick's cost per revision grew with N).
   */
  #reconcile(r: Revision): void {
    if (r.reconciling) {
      r.again = true;
      return;
    }
    // Marked busy before the round starts: a scaler that reports pods from inside scale() re-enters here.
    r.reconciling = BUSY;
    try {
      do {
        r.again = false;
        const pending = this.#reconcileOnce(r);
        if (pending) {
          r.reconciling = this.#reconcileRest(r, pending);
          return;
        }
      } while (r.again && this.#revs.get(r.key) === r);
    } catch (err) {
      this.#reconcileFailed(r, err);
    }
    r.reconciling = undefined;
  }

  /** A round that awaits, then the rounds asked for meanwhile. */
  async #reconcileRest(r: Revision, pending: Promise<void>): Promise<void> {
    try {
      await pending;
      while (r.again && this.#revs.get(r.key) === r) {
        r.again = false;
        await this.#reconcileOnce(r);
      }
    } catch (err) {
      this.#reconcileFailed(r, err);
    } finally {
      r.reconciling = undefined;
    }
  }

  #reconcileFailed(r: Revision, err: unknown): void {
    this.#o.logger.error("reconcile failed", { revision: r.key, error: String(err) });
  }

  /** One reconcile round; a promise only when it awaits the activator probe or the scaler. */
  #reconcileOnce(r: Revision): Promise<void> | undefined {
    const now = this.#o.clock.now();
    // Schedules and wake hints raise min-scale only; the decider's load reading is untouched.
    const { settings } = warmAt(r.policy, r.hintUntil, now);
    // Decide from the count the platform holds (Knative reads the scale subresource each reconcile):
    // otherwise a Deployment that starts at 1 is taken to be at 0 and never scaled down.
    const held = this.#o.scaler.replicas?.(r.rev);
    if (held !== undefined) r.scale.currentReplicas = held;
    const step = applyScale({ now, desired: r.status.desiredScale, state: r.scale, settings });
    if (step.kind === "probeActivator") return this.#probeThenApply(r, settings, held);
    return this.#applyStep(r, step, held, now);
  }

  async #probeThenApply(r: Revision, settings: ScaleSettings, held: number | undefined): Promise<void> {
    const ok = await this.#o.probeActivator(r.rev).catch(() => false);
    const now = this.#o.clock.now();
    const step = applyScale({
      now,
      desired: r.status.desiredScale,
      state: r.scale,
      settings,
      activatorProbe: ok,
    });
    await this.#applyStep(r, step, held, now);
  }

  /** A decided step: the scale request (awaited) if any, the rechecks, then what the pods show. */
  #applyStep(r: Revision, step: ScaleStep, held: number | undefined, now: number): Promise<void> | undefined {
    if (step.kind !== "decided") return undefined;
    // The platform already holds the decided count (the writer's retry got there, or the leader did):
    // an earlier failure no longer applies.
    if (step.patchReplicas === undefined && held !== undefined) r.scaleError = null;
    if (step.patchReplicas !== undefined && this.#revs.get(r.key) === r) {
      return this.#patch(r, step, step.patchReplicas, now);
    }
    this.#settle(r, step);
    return undefined;
  }

  async #patch(r: Revision, step: DecidedStep, to: number, now: number): Promise<void> {
    const from = r.scale.currentReplicas ?? 1;
    if (from === 0 && to > 0 && this.#readyCount(r) === 0) r.coldStartBegan ??= now;
    try {
      await this.#o.scaler.scale(r.rev, to);
      // Recorded only once the scaler accepted it: a failed request is asked again on the next tick.
      r.scale.currentReplicas = to;
      r.scaleError = null;
      this.#events.emit({ type: "scale", ...r.rev, from, to, reason: this.#reason(r, from, to), at: now });
    } catch (err) {
      const e = err as { code?: string; message?: string };
      r.scaleError = e?.message ?? String(err);
      if (e?.code !== "ERR_NOT_LEADER") {
        this.#o.logger.error("scaler failed", { revision: r.key, desired: to, error: r.scaleError });
      }
    }
    this.#settle(r, step);
  }

  #settle(r: Revision, step: DecidedStep): void {
    for (const e of step.effects) {
      this.#recheckAfter(r, e.kind === "recheckAfter" ? e.delayMs : e.periodMs);
    }
    this.#observe(r, step.scale, this.#o.clock.now());
  }

  /** Ready pods, the Active condition, the activator-in-path mode, cold-start timing; publishes changes. */
  #observe(r: Revision, want: number, now: number): void {
    const ready = this.#readyCount(r);
    const wasReady = r.readyPods;
    r.readyPods = ready;
    const { settings } = warmAt(r.policy, r.hintUntil, now);
    const minReady = activeThreshold(settings, r.scale);
    const cond = nextActiveCondition(r.scale.active, want, ready, minReady);
    if (cond.status !== r.scale.active) {
      r.scale.active = cond.status;
      r.scale.activeSinceMs = now;
    }
    if (!r.scale.scaleTargetInitialized && ready >= settings.initialScale)
      r.scale.scaleTargetInitialized = true;
    const mode = sksModeFor(want, r.status.excessBurstCapacity, r.scale.active);
    if (mode !== r.scale.sksMode) {
      r.scale.sksMode = mode;
      r.scale.proxySinceMs = mode === "Proxy" ? now : undefined;
    }
    if (wasReady === 0 && ready > 0 && r.coldStartBegan !== undefined) {
      r.lastColdStartMs = now - r.coldStartBegan;
      r.coldStartBegan = undefined;
      this.#events.emit({ type: "cold-start", ...r.rev, coldStartMs: r.lastColdStartMs, at: now });
    }
    if (ready === 0 && (r.scale.currentReplicas ?? 0) === 0) r.coldStartBegan = undefined;
    const status = this.#statusOf(r);
    if (r.published === undefined || !sameStatus(r.published, status)) {
      r.published = status;
      this.#events.emit({ type: "status", status, at: now });
    }
  }

  #recheckAfter(r: Revision, delayMs: number): void {
    const { clock } = this.#o;
    const at = clock.now() + delayMs;
    if (r.recheck && r.recheck.at <= at) return;
    if (r.recheck) clock.clearTimeout(r.recheck.handle);
    const handle = clock.setTimeout(() => {
      r.recheck = undefined;
      if (this.#running && this.#revs.get(r.key) === r) this.#reconcile(r);
    }, delayMs);
    r.recheck = { at, handle };
  }

  #reason(r: Revision, from: number, to: number): string {
    const spec = r.policy.decider;
    const settings = r.policy.settings;
    if (from === 0 && r.pokedAt !== undefined && this.#o.clock.now() - r.pokedAt < 5000) {
      return "request while scaled to zero";
    }
    const warm = warmAt(r.policy, r.hintUntil, this.#o.clock.now()).status;
    if (to === warm.minScale && to > r.status.desiredScale && to > r.policy.settings.minScale) {
      return warm.window
        ? `schedule window ${warm.window.name}: min-scale ${warm.window.minScale}`
        : "wake hint: kept at 1 pod without load";
    }
    // Nothing asked for these pods but the revision's floor (at start, or after a scale to zero).
    if (from === 0 && to === settings.minScale && r.stable === 0 && r.panicConc === 0) {
      return `min-scale ${settings.minScale}: kept running without any request`;
    }
    if (to === 0) return "idle: no load for the stable window and the grace period";
    const unit = spec.scalingMetric === "rps" ? "requests per second" : "concurrent";
    const load = `stable ${fmt(r.stable)} / panic ${fmt(r.panicConc)} ${unit}, target ${fmt(spec.targetValue)} per pod`;
    return `${r.decider.panicking ? "panic: " : ""}${load}${this.#limit(r, from, to)}`;
  }

  /** Which bound held a scale step short of what the load asked for: the same words up and down. */
  #limit(r: Revision, from: number, to: number): string {
    const spec = r.policy.decider;
    const max = r.policy.settings.maxScale;
    const asked = r.status.desiredScale;
    if (to > from) {
      if (max > 0 && to === max && asked > max) return ` (capped by max-scale ${max})`;
      return "";
    }
    // The load alone would go lower: the decider's floor of ready / max-scale-down-rate held it here.
    const wanted = Math.ceil(r.stable / spec.targetValue);
    if (wanted < to && to === r.policy.settings.minScale) return ` (held at ${to} by min-scale ${to})`;
    const ready = Math.max(1, r.readyPods);
    if (!r.decider.panicking && wanted < to && to === Math.floor(ready / spec.maxScaleDownRate)) {
      return ` (held at ${to} by max-scale-down-rate ${fmt(spec.maxScaleDownRate)}: at most ${ready} / ${fmt(spec.maxScaleDownRate)} per step)`;
    }
    return "";
  }

  #statusOf(r: Revision): RevisionStatus {
    return {
      namespace: r.rev.namespace,
      name: r.rev.name,
      desiredScale: r.scale.currentReplicas ?? 0,
      readyPods: r.readyPods,
      panic: r.decider.panicking,
      mode: r.scale.sksMode === "Proxy" ? "proxy" : "serve",
      stableConcurrency: r.stable,
      panicConcurrency: r.panicConc,
      excessBurstCapacity: r.status.excessBurstCapacity,
      lastColdStartMs: r.lastColdStartMs,
      scaleError: r.scaleError,
      podProblem: r.podProblem,
      warm: warmAt(r.policy, r.hintUntil, this.#o.clock.now()).status,
    };
  }
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
