/**
 * The records behind the `/_thaw/` dashboard, the cold-start log lines and `thaw_cold_start_phase_seconds`:
 * one shape for every part that sees a cold start or a scale event, so the page, the logs and the metrics
 * agree field by field.
 */

/** The moments of a cold start, in the order they happen (docs/dashboard.md). */
export const COLD_START_PHASES = [
  "queued",
  "scaleDecision",
  "podCreated",
  "podScheduled",
  "sandboxReady",
  "podStarted",
  "firstReady",
  "endpointsReady",
  "firstByte",
] as const;

/**
 * One moment of a cold start. `queued`: the first request found no ready pod and waits; `scaleDecision`:
 * the autoscaler asked for pods; `podStarted`: the first pod's process was started; `firstReady`: the first
 * pod passed a ready probe; `firstByte`: the first held request got its answer's headers. In a cluster the
 * autoscaler also sees, from the pod's status, `podCreated` (the Pod object exists), `podScheduled` (bound
 * to a node) and `sandboxReady` (the kubelet made its sandbox and network), and `endpointsReady` (the
 * Service's EndpointSlice lists it ready, which is when routers learn of it).
 */
export type ColdStartPhase = (typeof COLD_START_PHASES)[number];

/**
 * Moments beside the phases, seen only by `thaw up` (its local pods): `queueProxyListening`, the pod's
 * queue-proxy printed its listening line; `podReady`, the pod passed the local scaler's kubelet-style queue
 * probe; for a container, `containerCreated` (the engine created a copy of it, replicas past the first) and
 * `containerStarted` (the engine's start call returned). They overlap the phases (the activator's own probe
 * may pass first), so they are kept apart: in the record and the logs, not in the metric. The cold-start
 * benchmark reads them for its breakdown.
 */
export const COLD_START_MOMENTS = [
  "queueProxyListening",
  "podReady",
  "containerCreated",
  "containerStarted",
] as const;

/** One of {@link COLD_START_MOMENTS}. */
export type ColdStartMoment = (typeof COLD_START_MOMENTS)[number];

/** A phase as it happened: when (epoch ms) and how long since the phase before it (`queued`: 0). */
export interface ColdStartPhaseMark {
  phase: ColdStartPhase;
  at: number;
  ms: number;
}

/**
 * One cold start of a revision. `phases` holds the phases this process saw, in {@link COLD_START_PHASES}
 * order (`thaw up` sees queued, scaleDecision, podStarted, firstReady and firstByte; `thaw-autoscaler` with
 * Kubernetes every phase from queued to endpointsReady, and firstByte from its activators' notes);
 * `totalMs` is from `startedAt` to the last phase.
 */
export interface ColdStartRecord {
  namespace: string;
  revision: string;
  /** Unique within the process: `<namespace>/<revision>#<n>`. */
  id: string;
  /** When the first request was queued (or the scale-up from zero began), epoch ms. */
  startedAt: number;
  phases: ColdStartPhaseMark[];
  totalMs: number;
  /** The first pod started for this cold start, when this process started it (`thaw up`). */
  pod?: string;
  /** The {@link COLD_START_MOMENTS} this process saw (epoch ms), when any. */
  moments?: Partial<Record<ColdStartMoment, number>>;
}

/** The autoscaler asked the scaler for a new replica count, and why (the decider's reason, for people). */
export interface ScaleRecord {
  /** Epoch ms. */
  t: number;
  namespace: string;
  revision: string;
  from: number;
  to: number;
  reason: string;
}

interface Open {
  startedAt: number;
  at: Partial<Record<ColdStartPhase, number>>;
  moments: Partial<Record<ColdStartMoment, number>>;
  pod?: string;
}

/**
 * Collects the phases of each revision's current cold start from wherever they happen, and hands out the
 * finished {@link ColdStartRecord}. `queued` opens a record (a second `queued` while one is open is the
 * same cold start); later phases are kept once (the first time wins); `finish` closes it.
 */
export class ColdStartRecorder {
  readonly #open = new Map<string, Open>();
  #count = 0;

  /** True while a cold start of this revision is being recorded. */
  isOpen(namespace: string, revision: string): boolean {
    return this.#open.has(`${namespace}/${revision}`);
  }

  /** True when the open cold start of this revision has `phase` already. */
  has(namespace: string, revision: string, phase: ColdStartPhase): boolean {
    return this.#open.get(`${namespace}/${revision}`)?.at[phase] !== undefined;
  }

  /**
   * Records that `phase` happened at `at` (epoch ms); phases other than `queued` need an open record.
   * `pod` names the pod of `podStarted` (kept with the first one).
   */
  mark(namespace: string, revision: string, phase: ColdStartPhase, at: number, pod?: string): void {
    const key = `${namespace}/${revision}`;
    let open = this.#open.get(key);
    if (!open) {
      if (phase !== "queued") return;
      open = { startedAt: at, at: {}, moments: {} };
      this.#open.set(key, open);
    }
    if (phase === "podStarted" && pod !== undefined && open.at.podStarted === undefined) open.pod = pod;
    open.at[phase] ??= at;
  }

  /** The pod of the open cold start's `podStarted`, if any: the one its pod moments are about. */
  podOf(namespace: string, revision: string): string | undefined {
    return this.#open.get(`${namespace}/${revision}`)?.pod;
  }

  /** Records a moment beside the phases (the first time wins); ignored unless a record is open. */
  moment(namespace: string, revision: string, moment: ColdStartMoment, at: number): void {
    const open = this.#open.get(`${namespace}/${revision}`);
    if (open) open.moments[moment] ??= at;
  }

  /** Closes the open cold start and returns its record; undefined when none is open. */
  finish(namespace: string, revision: string): ColdStartRecord | undefined {
    const key = `${namespace}/${revision}`;
    const open = this.#open.get(key);
    if (!open) return undefined;
    this.#open.delete(key);
    const phases: ColdStartPhaseMark[] = [];
    let prev = open.startedAt;
    for (const phase of COLD_START_PHASES) {
      const at = open.at[phase];
      if (at === undefined) continue;
      // Moments come from different parts (and a scale call that returns after the pod spawned): a phase
      // never counts negative time.
      const clamped = Math.max(prev, at);
      phases.push({ phase, at: clamped, ms: clamped - prev });
      prev = clamped;
    }
    this.#count++;
    return {
      namespace,
      revision,
      id: `${key}#${this.#count}`,
      startedAt: open.startedAt,
      phases,
      totalMs: prev - open.startedAt,
      ...(open.pod !== undefined ? { pod: open.pod } : {}),
      ...(Object.keys(open.moments).length > 0 ? { moments: open.moments } : {}),
    };
  }

  /** Forgets an open cold start that will not finish (the revision went back to zero first). */
  abandon(namespace: string, revision: string): void {
    this.#open.delete(`${namespace}/${revision}`);
  }
}
