/** One cold start as the activator saw it. */
export interface ColdStartSample {
  namespace: string;
  name: string;
  durationMs: number;
}

/** The activator's own counters, runtime-neutral; Node mirrors them into prom-client, the edge serves JSON. */
export interface TelemetrySnapshot {
  queued: number;
  rejected: number;
  replayed: number;
  coldStarts: number;
  /** Most recent cold-start durations, newest last (at most 50). */
  recentColdStartsMs: number[];
}

/** Counts queued, rejected and replayed requests and records cold-start durations. */
export class Telemetry {
  #queued = 0;
  #rejected = 0;
  #replayed = 0;
  #coldStarts = 0;
  #recent: number[] = [];
  #listeners: ((s: ColdStartSample) => void)[] = [];

  /** A request had to wait for capacity. */
  queued(): void {
    this.#queued++;
  }
  /** A request was answered 503 (queue full or deadline) without reaching a pod. */
  rejected(): void {
    this.#rejected++;
  }
  /** A forward was sent again to another pod. */
  replayed(): void {
    this.#replayed++;
  }
  /** A revision went from no ready pod to one. */
  coldStart(sample: ColdStartSample): void {
    this.#coldStarts++;
    this.#recent.push(sample.durationMs);
    if (this.#recent.length > 50) this.#recent.shift();
    for (const l of this.#listeners) l(sample);
  }
  /** Calls `listener` on every cold start (prom-client histogram on Node). */
  onColdStart(listener: (s: ColdStartSample) => void): void {
    this.#listeners.push(listener);
  }
  /** The numbers now. */
  snapshot(): TelemetrySnapshot {
    return {
      queued: this.#queued,
      rejected: this.#rejected,
      replayed: this.#replayed,
      coldStarts: this.#coldStarts,
      recentColdStartsMs: [...this.#recent],
    };
  }
}
