import { type PodTracker, RevisionThrottler } from "@thaw/activation";

/** A pod slot held while a released request runs; `release` gives it back (once, however often called). */
export interface PodSlot {
  readonly dest: string;
  release(): void;
}

/** One revision's pod slots: its ready pods, the slots they have, how many are taken and how many wait. */
export interface SlotsView {
  endpoints: string[];
  capacity: number;
  inFlight: number;
  waiting: number;
}

interface RevisionSlots {
  endpoints: readonly string[];
  rt: RevisionThrottler;
}

/**
 * The fallback release for a hook with no activator on the request path, where it can see requests finish
 * (the `thawIngress` middleware): requests are let go no faster than the ready pods take them, first come
 * first served. It is the activator's own throttler (@thaw/activation RevisionThrottler:
 * containerConcurrency slots per pod, one FIFO queue per revision), run in the gateway.
 */
export class CapacityRelease {
  readonly #revisions = new Map<string, RevisionSlots>();
  readonly #containerConcurrencyFor: (key: string) => number;
  readonly #queueLimitFor: (key: string) => number;

  /** `queueLimit`: most waiters per revision, a number for all or a function of the revision key. */
  constructor(
    containerConcurrencyFor: (key: string) => number,
    queueLimit: number | ((key: string) => number) = 10_000,
  ) {
    this.#containerConcurrencyFor = containerConcurrencyFor;
    this.#queueLimitFor = typeof queueLimit === "number" ? () => queueLimit : queueLimit;
  }

  /**
   * Waits, in arrival order, for a slot on one of `endpoints` (the revision's ready pods now). Undefined when
   * the revision has no per-pod limit (containerConcurrency 0). Rejects with QueueFullError past the queue
   * bound, and with the signal's reason when the caller goes away first.
   */
  async acquire(
    key: string,
    endpoints: readonly string[],
    signal?: AbortSignal,
  ): Promise<PodSlot | undefined> {
    const r = this.#slots(key, endpoints);
    if (!r) return undefined;
    const tracker = await r.rt.acquire(signal);
    return slot(r.rt, tracker);
  }

  /**
   * The same without waiting: a slot when one is free and nobody waits ahead, "none" when there is no
   * per-pod limit, undefined when the caller must {@link acquire} (and queue).
   */
  tryAcquire(key: string, endpoints: readonly string[]): PodSlot | "none" | undefined {
    const r = this.#slots(key, endpoints);
    if (!r) return "none";
    const tracker = r.rt.tryAcquire();
    return tracker ? slot(r.rt, tracker) : undefined;
  }

  /** The revision's throttler on `endpoints`; undefined when it has no per-pod limit. */
  #slots(key: string, endpoints: readonly string[]): RevisionSlots | undefined {
    const cc = this.#containerConcurrencyFor(key);
    if (cc <= 0) return undefined;
    let r = this.#revisions.get(key);
    if (!r) {
      r = {
        endpoints: [],
        rt: new RevisionThrottler({ containerConcurrency: cc, queueLimit: this.#queueLimitFor(key) }),
      };
      this.#revisions.set(key, r);
    }
    // The warm cache keeps an endpoints array until it changes: identity is the change test.
    if (endpoints.length > 0 && endpoints !== r.endpoints) {
      r.endpoints = endpoints;
      r.rt.updateDestinations(endpoints);
    }
    return r;
  }

  /** Each revision's slots now (status pages, and a test that lost a request looks here). */
  snapshot(): Record<string, SlotsView> {
    const out: Record<string, SlotsView> = {};
    for (const [key, { endpoints, rt }] of this.#revisions) {
      out[key] = {
        endpoints: [...endpoints],
        capacity: rt.capacity,
        inFlight: rt.inFlight,
        waiting: rt.waiting,
      };
    }
    return out;
  }
}

function slot(rt: RevisionThrottler, tracker: PodTracker): PodSlot {
  let done = false;
  return {
    dest: tracker.dest,
    release: () => {
      if (done) return;
      done = true;
      rt.release(tracker);
    },
  };
}
