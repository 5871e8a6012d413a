/** One cold start as the activator saw it. */
export interface ColdStartSample {
  namespace: string;
  name: string;
  durationMs: number;
}

/** The activator's own counters, runtime-neutral; Node renders them as Prometheus text, the edge serves JSON. */
export interface TelemetrySnapshot {
  queued: number;
  rejected: number;
  replayed: number;
  coldStarts: number;
  /** Most recent cold-start durations, newest last (at most 50). */
  recentColdStartsMs: number[];
}

/** One revision's counters (the Prometheus series carry its namespace and name). */
export interface RevisionCounts {
  readonly namespace: string;
  readonly name: string;
  /** Every request the activator took for the revision, held or proxied at once. */
  received: number;
  queued: number;
  rejected: number;
  replayed: number;
}

type Key = { namespace: string; name: string };

/** The first held request of a cold start got its answer's head at `at` (epoch ms). */
export interface FirstByteSample {
  namespace: string;
  name: string;
  at: number;
}

/**
 * Counts received, queued, rejected and replayed requests per revision and records cold-start durations.
 * `received` is the one count on the warm path: it is what shows a warm request never came through here
 * (the ingress sends those straight to a pod).
 */
export class Telemetry {
  #coldStarts = 0;
  #recent: number[] = [];
  #listeners: ((s: ColdStartSample) => void)[] = [];
  #firstByteListeners: ((s: FirstByteSample) => void)[] = [];
  /** Per revision, the cold start whose first byte was told already (its beginning, epoch ms). */
  readonly #firstByteOf = new Map<string, number>();
  readonly #revs = new Map<string, RevisionCounts>();

  /** The activator took a request for `rev` (every request, counted once at arrival). */
  received(rev: Key): void {
    this.#of(rev).received++;
  }
  /** A request for `rev` had to wait for capacity. */
  queued(rev: Key): void {
    this.#of(rev).queued++;
  }
  /** A request for `rev` was answered 503 (queue full or deadline) without reaching a pod. */
  rejected(rev: Key): void {
    this.#of(rev).rejected++;
  }
  /** A forward for `rev` was sent again to another pod. */
  replayed(rev: Key): void {
    this.#of(rev).replayed++;
  }
  /** A revision went from no ready pod to one. */
  coldStart(sample: ColdStartSample): void {
    this.#coldStarts++;
    this.#recent.push(sample.durationMs);
    if (this.#recent.length > 50) this.#recent.shift();
    for (const l of this.#listeners) l(sample);
  }
  /** Calls `listener` on every cold start (the Prometheus histogram on Node). */
  onColdStart(listener: (s: ColdStartSample) => void): void {
    this.#listeners.push(listener);
  }
  /**
   * A request held while `rev` had no ready pod got its answer's head at `at`: told once per cold start,
   * the one that began at `coldBeganAt` (later held requests of the same start are not news).
   */
  firstByte(rev: Key, at: number, coldBeganAt: number): void {
    const key = `${rev.namespace}/${rev.name}`;
    if (this.#firstByteOf.get(key) === coldBeganAt) return;
    this.#firstByteOf.set(key, coldBeganAt);
    const s = { namespace: rev.namespace, name: rev.name, at };
    for (const l of this.#firstByteListeners) l(s);
  }
  /** Calls `listener` on each cold start's first byte (the autoscaler's record of it, in a cluster). */
  onFirstByte(listener: (s: FirstByteSample) => void): void {
    this.#firstByteListeners.push(listener);
  }
  /** Every revision counted so far. */
  revisions(): Iterable<RevisionCounts> {
    return this.#revs.values();
  }
  /** The numbers now, summed over revisions (`GET /v1/status`). */
  snapshot(): TelemetrySnapshot {
    let queued = 0;
    let rejected = 0;
    let replayed = 0;
    for (const r of this.#revs.values()) {
      queued += r.queued;
      rejected += r.rejected;
      replayed += r.replayed;
    }
    return {
      queued,
      rejected,
      replayed,
      coldStarts: this.#coldStarts,
      recentColdStartsMs: [...this.#recent],
    };
  }

  #of(rev: Key): RevisionCounts {
    const id = `${rev.namespace}/${rev.name}`;
    let r = this.#revs.get(id);
    if (r === undefined) {
      r = { namespace: rev.namespace, name: rev.name, received: 0, queued: 0, rejected: 0, replayed: 0 };
      this.#revs.set(id, r);
    }
    return r;
  }
}
