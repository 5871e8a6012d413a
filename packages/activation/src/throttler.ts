import type { RandomSource } from "./lb-policy.js";
import type { PodTracker } from "./pod-tracker.js";
import { RevisionThrottler } from "./revision-throttler.js";

/** Defaults shared by every revision of a {@link Throttler}. */
export interface ThrottlerOptions {
  /** Per-revision waiting limit unless the revision sets its own. Default 10 000. */
  queueLimit?: number;
  /** Random source for CC-0 revisions; default Math.random. */
  random?: RandomSource;
}

/** A throttled call named a revision the throttler does not know. */
export class UnknownRevisionError extends Error {
  readonly code = "ERR_UNKNOWN_REVISION";
  constructor(revision: string) {
    super(`unknown revision ${revision}`);
    this.name = "UnknownRevisionError";
  }
}

/** All revisions' throttlers of one activator, keyed by the caller's revision key (e.g. `ns/name`). */
export class Throttler {
  readonly #revisions = new Map<string, RevisionThrottler>();
  readonly #opts: ThrottlerOptions;

  constructor(opts: ThrottlerOptions = {}) {
    this.#opts = opts;
  }

  /** The revision's throttler, if known. */
  get(revision: string): RevisionThrottler | undefined {
    return this.#revisions.get(revision);
  }

  /**
   * Creates the revision's throttler, or returns the existing one when its containerConcurrency is
   * unchanged (a changed CC replaces it; requests in flight on the old one finish there).
   */
  upsert(revision: string, containerConcurrency: number, queueLimit?: number): RevisionThrottler {
    const existing = this.#revisions.get(revision);
    if (existing && existing.containerConcurrency === containerConcurrency) return existing;
    const rt = new RevisionThrottler({
      containerConcurrency,
      queueLimit: queueLimit ?? this.#opts.queueLimit,
      random: this.#opts.random,
    });
    this.#revisions.set(revision, rt);
    return rt;
  }

  /** Forgets a revision. */
  delete(revision: string): boolean {
    return this.#revisions.delete(revision);
  }

  /** Feeds the healthy destinations of a revision (from the backend prober). */
  updateDestinations(revision: string, dests: readonly string[]): void {
    this.#must(revision).updateDestinations(dests);
  }

  /** Waits for capacity in `revision`, runs `fn` on the reserved destination, releases. */
  try<T>(
    revision: string,
    signal: AbortSignal | undefined,
    fn: (dest: string) => T | Promise<T>,
  ): Promise<T> {
    const rt = this.#revisions.get(revision);
    if (!rt) return Promise.reject(new UnknownRevisionError(revision));
    return rt.try(signal, fn);
  }

  /** Synchronous admission for hot paths; see {@link RevisionThrottler.tryAcquire}. */
  tryAcquire(revision: string): PodTracker | undefined {
    return this.#must(revision).tryAcquire();
  }

  /** Gives back what `tryAcquire` returned for `revision`. */
  release(revision: string, tracker: PodTracker): void {
    this.#must(revision).release(tracker);
  }

  #must(revision: string): RevisionThrottler {
    const rt = this.#revisions.get(revision);
    if (!rt) throw new UnknownRevisionError(revision);
    return rt;
  }
}
