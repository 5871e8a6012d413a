import type { WarmStatus } from "./warm.js";

/** DESIGN.md contract 4: what `GET /_thaw/api/revisions` returns per revision, exactly these fields. */
export interface RevisionStatus {
  namespace: string;
  name: string;
  /** Replicas asked of the scaler. */
  desiredScale: number;
  readyPods: number;
  panic: boolean;
  /** `proxy` while the activator is in the path (cold, or burst capacity short); `serve` otherwise. */
  mode: "proxy" | "serve";
  stableConcurrency: number;
  panicConcurrency: number;
  excessBurstCapacity: number;
  /** The latest cold start: from the first request (or scale-up from zero) to the first ready pod; null = none yet. */
  lastColdStartMs: number | null;
  /**
   * Why the last scale request failed (e.g. the API server's answer), until one succeeds; null = none.
   * `desiredScale` stays at the last count the scaler accepted while this is set.
   */
  scaleError: string | null;
  /**
   * Why no pod is serving, when the scaler can tell (`thaw up`'s local pods: the app exited before it was
   * ready with its code and last output, no such command, listening on another port than `$PORT`, the
   * crash-loop back-off); null = nothing known to be wrong.
   */
  podProblem: string | null;
  /** What keeps the revision warm now: the schedule window in force, a wake hint, the min-scale they make. */
  warm: WarmStatus;
}

/**
 * True when two statuses hold the same values (NaN equal to NaN), so a status event goes out only on a change:
 * compared field by field because the service asks this of every revision on every tick.
 */
export function sameStatus(a: RevisionStatus, b: RevisionStatus): boolean {
  return (
    a.namespace === b.namespace &&
    a.name === b.name &&
    sameNumber(a.desiredScale, b.desiredScale) &&
    sameNumber(a.readyPods, b.readyPods) &&
    a.panic === b.panic &&
    a.mode === b.mode &&
    sameNumber(a.stableConcurrency, b.stableConcurrency) &&
    sameNumber(a.panicConcurrency, b.panicConcurrency) &&
    sameNumber(a.excessBurstCapacity, b.excessBurstCapacity) &&
    (a.lastColdStartMs === null || b.lastColdStartMs === null
      ? a.lastColdStartMs === b.lastColdStartMs
      : sameNumber(a.lastColdStartMs, b.lastColdStartMs)) &&
    a.scaleError === b.scaleError &&
    a.podProblem === b.podProblem &&
    a.warm.minScale === b.warm.minScale &&
    a.warm.hintUntilMs === b.warm.hintUntilMs &&
    a.warm.window?.name === b.warm.window?.name
  );
}

function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** The scaler was asked for a new number of replicas. */
export interface ScaleEvent {
  type: "scale";
  namespace: string;
  name: string;
  from: number;
  to: number;
  /** Why, in words for people. */
  reason: string;
  at: number;
}

/** The first pod of a cold start became ready. */
export interface ColdStartEvent {
  type: "cold-start";
  namespace: string;
  name: string;
  coldStartMs: number;
  at: number;
}

/** An activator saw the first byte of a cold start's first held request (its FirstByteNote). */
export interface FirstByteEvent {
  type: "first-byte";
  namespace: string;
  name: string;
  /** When the answer's head reached the activator, epoch ms by its clock. */
  at: number;
}

/** A revision's status changed (mode, ready pods, panic...). */
export interface StatusEvent {
  type: "status";
  status: RevisionStatus;
  at: number;
}

/** What is wrong with a revision's pods changed (a crash, a wrong port, ...), or stopped being wrong. */
export interface ProblemEvent {
  type: "problem";
  namespace: string;
  name: string;
  /** `failing`: waiting will not fix it (held requests are answered at once); `waiting`: maybe a slow start. */
  severity: "failing" | "waiting" | null;
  /** In words for people; null = resolved. */
  message: string | null;
  at: number;
}

/** Everything the service publishes to subscribers (in process and over SSE). */
export type AutoscalerEvent = ScaleEvent | ColdStartEvent | FirstByteEvent | StatusEvent | ProblemEvent;

/** A minimal synchronous publisher; a throwing listener cannot stop the others. */
export class EventHub<E> {
  readonly #listeners = new Set<(e: E) => void>();

  /** Adds a listener; returns its removal. */
  on(listener: (e: E) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls every listener with `e`. */
  emit(e: E): void {
    for (const l of this.#listeners) {
      try {
        l(e);
      } catch {
        // A subscriber's bug must not stop the autoscaler's loop.
      }
    }
  }

  /** Number of listeners (tests, shutdown checks). */
  get size(): number {
    return this.#listeners.size;
  }
}
