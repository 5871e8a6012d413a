import type { Clock, TimerHandle } from "@thaw/clock";
import {
  COLD_START_PHASES,
  type ColdStartPhase,
  type ColdStartPhaseMark,
  type ColdStartRecord,
  type ScaleRecord,
} from "@thaw/protocol";
import { type AutoscalerEvent, EventHub, type RevisionStatus } from "../events.js";
import type { RevisionKey } from "../revision.js";
import type { WarmStatus } from "../warm.js";

/** One revision's figures at one moment (docs/dashboard.md, event `sample`). */
export interface RevisionSample {
  namespace: string;
  revision: string;
  ready: number;
  desired: number;
  mode: "proxy" | "serve";
  panic: boolean;
  stableConcurrency: number;
  panicConcurrency: number;
  /** The decider's target concurrency per pod. */
  target: number | null;
  excessBurstCapacity: number;
  /** Requests waiting for a pod with room; null where this process does not hold requests (thaw-autoscaler). */
  queueDepth: number | null;
  lastColdStartMs: number | null;
  scaleError: string | null;
  /** Why no pod serves, when known (the status's `podProblem`). */
  podProblem: string | null;
  /** What keeps the revision warm now (the status's `warm`: schedule window, wake hint). */
  warm: WarmStatus;
}

/** What went wrong with a revision's pods, or that it stopped being wrong (`message` null). */
export interface ProblemRecord {
  t: number;
  namespace: string;
  revision: string;
  severity: "failing" | "waiting" | null;
  message: string | null;
}

/** Every revision at one moment, epoch ms. */
export interface Sample {
  t: number;
  revisions: RevisionSample[];
}

/** What `GET /_thaw/api/stream` sends, by SSE event name. */
export type DashboardEvent =
  | { type: "sample"; data: Sample }
  | { type: "scale"; data: ScaleRecord }
  | { type: "coldstart"; data: ColdStartRecord }
  | { type: "problem"; data: ProblemRecord };

/** What the feed reads from the autoscaler service. */
export interface FeedSource {
  on(listener: (e: AutoscalerEvent) => void): () => void;
  revisions(): RevisionStatus[];
  targetOf(rev: RevisionKey): number | undefined;
}

/** Options of {@link DashboardFeed}. */
export interface DashboardFeedOptions {
  source: FeedSource;
  clock: Clock;
  /** Requests held for a revision now (thaw up's activator); absent = unknown here. */
  queueDepth?: (rev: RevisionKey) => number;
  /**
   * Build cold-start records from the service's own events (queued, scale decision, first ready, and the
   * activators' first byte): for thaw-autoscaler, which sees no pod process. thaw up passes full records to
   * `coldStart`.
   */
  coldStartsFromService?: boolean;
  /** Sample period (default 1 s). */
  sampleMs?: number;
  /** Samples kept for the replay (default 10 minutes' worth). */
  windowMs?: number;
  /** Scale events and cold starts kept for the replay (default 100 and 20). */
  maxScaleEvents?: number;
  maxColdStarts?: number;
}

/**
 * The dashboard's data: a sample of every revision each second (a bounded ring of the last 10 minutes),
 * the recent scale events with the decider's reason, and the recent cold starts with their phases. One
 * feed per process; the page's SSE stream replays it on connect, then follows it live.
 */
export class DashboardFeed {
  readonly #o: DashboardFeedOptions;
  readonly #hub = new EventHub<DashboardEvent>();
  readonly #samples: Sample[] = [];
  readonly #scales: ScaleRecord[] = [];
  readonly #coldStarts: ColdStartRecord[] = [];
  readonly #problems: ProblemRecord[] = [];
  /** thaw-autoscaler: the latest scale-up from zero per revision, for the cold start's scale decision. */
  readonly #fromZero = new Map<string, number>();
  /** Each revision's latest cold start as its record says: the table shows the timeline's own figure. */
  readonly #lastColdStart = new Map<string, number>();
  /** thaw-autoscaler in a cluster: the first pod's phases since that scale-up, from its status. */
  readonly #podMarks = new Map<
    string,
    { since: number; pod: string; at: Partial<Record<ColdStartPhase, number>> }
  >();
  /** thaw-autoscaler: cold starts with a ready pod, waiting (FIRST_BYTE_WAIT_MS at most) for their first byte. */
  readonly #awaiting = new Map<string, AwaitingColdStart>();
  /** The latest first byte each revision's activators told, kept for a cold start recorded after it. */
  readonly #firstBytes = new Map<string, number>();
  #timer: TimerHandle | undefined;
  #off: () => void = () => {};
  #count = 0;
  constructor(options: DashboardFeedOptions) {
    this.#o = options;
  }

  /** Starts sampling and listening to the service. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#off = this.#o.source.on((e) => this.#onServiceEvent(e));
    const loop = () => {
      this.sampleNow();
      this.#timer = this.#o.clock.setTimeout(loop, this.#o.sampleMs ?? 1000);
    };
    loop();
  }

  /** Stops sampling; cold starts still waiting for a first byte are recorded without. Listeners stay. */
  stop(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const key of [...this.#awaiting.keys()]) this.#recordAwaiting(key);
    this.#off();
    this.#off = () => {};
  }

  /** Subscribes to new samples, scale events and cold starts; returns the unsubscribe. */
  on(listener: (e: DashboardEvent) => void): () => void {
    return this.#hub.on(listener);
  }

  /** What a client that connects now is sent first: the kept samples, then scale events, then cold starts. */
  replay(): DashboardEvent[] {
    return [
      ...this.#samples.map((data) => ({ type: "sample" as const, data })),
      ...this.#scales.map((data) => ({ type: "scale" as const, data })),
      ...this.#coldStarts.map((data) => ({ type: "coldstart" as const, data })),
      ...this.#problems.map((data) => ({ type: "problem" as const, data })),
    ];
  }

  /**
   * Every kept record that is not a sample (scale events, cold starts, problems) in time order, then each
   * new one as it comes: what a log started after the stack (thaw up's terminal) must still show.
   */
  records(listener: (e: Exclude<DashboardEvent, { type: "sample" }>) => void): () => void {
    const kept = this.replay().filter((e) => e.type !== "sample");
    for (const e of kept.sort((a, b) => timeOf(a) - timeOf(b))) listener(e);
    return this.#hub.on((e) => {
      if (e.type !== "sample") listener(e);
    });
  }

  /** Publishes a finished cold start (thaw up's recorder). */
  coldStart(record: ColdStartRecord): void {
    push(this.#coldStarts, record, this.#o.maxColdStarts ?? 20);
    this.#lastColdStart.set(`${record.namespace}/${record.revision}`, record.totalMs);
    this.#hub.emit({ type: "coldstart", data: record });
  }

  /**
   * A pod of the revision reached `phase` at `at` (the Kubernetes scaler's pod statuses): kept for the
   * cold start under way, for the first pod created after the scale-up from zero only.
   */
  podPhase(rev: RevisionKey, phase: ColdStartPhase, at: number, pod: string): void {
    const key = `${rev.namespace}/${rev.name}`;
    const since = this.#fromZero.get(key);
    if (since === undefined || at < since) return;
    let marks = this.#podMarks.get(key);
    if (marks?.since !== since) {
      if (phase !== "podCreated") return;
      marks = { since, pod, at: {} };
      this.#podMarks.set(key, marks);
    }
    if (marks.pod === pod) marks.at[phase] ??= at;
  }

  /**
   * The source's status of every revision, its last cold start the one its latest record says: what the
   * status API (`GET /_thaw/api/revisions`) serves, so it, the table and the timeline tell one figure.
   */
  revisions(): RevisionStatus[] {
    return this.#o.source.revisions().map((s) => {
      const recorded = this.#lastColdStart.get(`${s.namespace}/${s.name}`);
      return recorded === undefined ? s : { ...s, lastColdStartMs: recorded };
    });
  }

  /** Takes a sample of every revision now and publishes it. */
  sampleNow(): Sample {
    const { source, queueDepth } = this.#o;
    const sample: Sample = {
      t: this.#o.clock.now(),
      revisions: this.revisions().map((s) => {
        const rev = { namespace: s.namespace, name: s.name };
        return {
          namespace: s.namespace,
          revision: s.name,
          ready: s.readyPods,
          desired: s.desiredScale,
          mode: s.mode,
          panic: s.panic,
          stableConcurrency: s.stableConcurrency,
          panicConcurrency: s.panicConcurrency,
          target: source.targetOf(rev) ?? null,
          excessBurstCapacity: s.excessBurstCapacity,
          queueDepth: queueDepth ? queueDepth(rev) : null,
          lastColdStartMs: s.lastColdStartMs,
          scaleError: s.scaleError,
          podProblem: s.podProblem,
          warm: s.warm,
        };
      }),
    };
    const keep = Math.max(1, Math.ceil((this.#o.windowMs ?? 600_000) / (this.#o.sampleMs ?? 1000)));
    push(this.#samples, sample, keep);
    this.#hub.emit({ type: "sample", data: sample });
    return sample;
  }

  #onServiceEvent(e: AutoscalerEvent): void {
    if (e.type === "problem") {
      const { namespace, name: revision, severity, message, at: t } = e;
      const record: ProblemRecord = { t, namespace, revision, severity, message };
      push(this.#problems, record, this.#o.maxScaleEvents ?? 100);
      this.#hub.emit({ type: "problem", data: record });
    } else if (e.type === "scale") {
      const record: ScaleRecord = {
        t: e.at,
        namespace: e.namespace,
        revision: e.name,
        from: e.from,
        to: e.to,
        reason: e.reason,
      };
      if (e.from === 0 && e.to > 0) this.#fromZero.set(`${e.namespace}/${e.name}`, e.at);
      push(this.#scales, record, this.#o.maxScaleEvents ?? 100);
      this.#hub.emit({ type: "scale", data: record });
    } else if (e.type === "cold-start" && this.#o.coldStartsFromService) {
      const key = `${e.namespace}/${e.name}`;
      const startedAt = e.at - e.coldStartMs;
      const decided = this.#fromZero.get(key);
      const at: Partial<Record<ColdStartPhase, number>> = { queued: startedAt };
      if (decided !== undefined && decided >= startedAt && decided <= e.at) at.scaleDecision = decided;
      const seen = this.#podMarks.get(key);
      this.#podMarks.delete(key);
      const pod = seen && seen.since === decided ? seen : undefined;
      // With the pod's own phases, the scaler's ready pod is the EndpointSlice listing it; without, the
      // first sign of readiness this process has.
      if (pod) Object.assign(at, pod.at, { endpointsReady: e.at });
      else at.firstReady = e.at;
      if (this.#awaiting.has(key)) this.#recordAwaiting(key);
      const waiting: AwaitingColdStart = {
        namespace: e.namespace,
        revision: e.name,
        startedAt,
        readyAt: e.at,
        at,
        ...(pod ? { pod: pod.pod } : {}),
        timer: this.#o.clock.setTimeout(() => this.#recordAwaiting(key), FIRST_BYTE_WAIT_MS),
      };
      this.#awaiting.set(key, waiting);
      // An activator may have forwarded to the pod before the scaler saw it ready (it probes pods itself).
      const early = this.#firstBytes.get(key);
      if (early !== undefined && early >= startedAt) this.#firstByte(key, early);
    } else if (e.type === "first-byte" && this.#o.coldStartsFromService) {
      this.#firstByte(`${e.namespace}/${e.name}`, e.at);
    }
  }

  /** A first byte of `key` at `at`: ends the cold start waiting for it, or is kept for the next one. */
  #firstByte(key: string, at: number): void {
    const w = this.#awaiting.get(key);
    if (!w || at < w.startedAt) {
      this.#firstBytes.set(key, at);
      return;
    }
    this.#firstBytes.delete(key);
    w.at.firstByte = at;
    this.#recordAwaiting(key);
  }

  /** Publishes the waiting cold start of `key` with the phases it has (a first byte or not). */
  #recordAwaiting(key: string): void {
    const w = this.#awaiting.get(key);
    if (!w) return;
    this.#awaiting.delete(key);
    this.#o.clock.clearTimeout(w.timer);
    const end = w.at.firstByte === undefined ? w.readyAt : Math.max(w.at.firstByte, w.readyAt);
    const phases: ColdStartPhaseMark[] = [];
    let prev = w.startedAt;
    for (const phase of COLD_START_PHASES) {
      const t = w.at[phase];
      if (t === undefined || t > end) continue;
      const clamped = Math.max(prev, t);
      phases.push({ phase, at: clamped, ms: clamped - prev });
      prev = clamped;
    }
    this.#count++;
    this.coldStart({
      namespace: w.namespace,
      revision: w.revision,
      id: `${key}#${this.#count}`,
      startedAt: w.startedAt,
      phases,
      totalMs: end - w.startedAt,
      ...(w.pod ? { pod: w.pod } : {}),
    });
  }
}

/**
 * How long thaw-autoscaler waits, once a cold start's pod is ready, for an activator to tell its first
 * byte before recording the start without one (woken by `/v1/activate` alone, or an activator that could
 * not tell: HTTP stats, an older activator).
 */
export const FIRST_BYTE_WAIT_MS = 30_000;

/** A cold start whose pod is ready, not yet recorded: it waits for its first byte. */
interface AwaitingColdStart {
  namespace: string;
  revision: string;
  startedAt: number;
  readyAt: number;
  at: Partial<Record<ColdStartPhase, number>>;
  pod?: string;
  timer: TimerHandle;
}

/** Appends, dropping the oldest beyond `max` (a bounded ring). */
function push<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/** When a record happened: its event time, or a cold start's beginning. */
function timeOf(e: Exclude<DashboardEvent, { type: "sample" }>): number {
  return e.type === "coldstart" ? e.data.startedAt : e.data.t;
}
