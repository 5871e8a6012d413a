import { type Answer, type Ticket, waitFor } from "./answer.js";
import { Breaker } from "./breaker.js";
import { assignSlice, calculateCapacity, inferActivatorIndex, MAX_INT32 } from "./capacity.js";
import { QueueFullError } from "./errors.js";
import type { Gate } from "./gate.js";
import { InfiniteBreaker } from "./infinite-breaker.js";
import { type LbPolicy, policyFor, type RandomSource } from "./lb-policy.js";
import { PodTracker } from "./pod-tracker.js";
import { type Room, ThrottleWaiter } from "./throttle-waiter.js";
import { WaiterQueue } from "./waiter-queue.js";

/** Settings of one revision's throttler. */
export interface RevisionThrottlerOptions {
  /** The revision's containerConcurrency; 0 = unlimited per pod. */
  containerConcurrency: number;
  /** Most requests that may wait for capacity; overflow rejects with QueueFullError. Default 10 000. */
  queueLimit?: number;
  /** Random source for the CC-0 policy; default Math.random. */
  random?: RandomSource;
}

/** Default waiting-room size: Knative's activator queue depth, but here it is a real bound. */
export const DEFAULT_QUEUE_LIMIT = 10_000;

/**
 * One revision's throttling at this activator (d.2): a revision-wide gate sized to the capacity of the
 * pods assigned here, pod trackers, and the load-balancing policy for its containerConcurrency.
 */
export class RevisionThrottler {
  readonly containerConcurrency: number;
  readonly #gate: Gate;
  readonly #policy: LbPolicy;
  readonly #trackers = new Map<string, PodTracker>();
  #sorted: PodTracker[] = [];
  #assigned: PodTracker[] = [];
  // Set while routing through the revision's private ClusterIP (d.3 fallback): the one tracker, unlimited.
  #clusterIP: PodTracker | undefined;
  #backendCount = 0;
  #numActivators = 1;
  #activatorIndex = -1;
  // Admitted callers that found no tracker with room (capacity changed under them) park here; one that
  // gives up there gives its admission back.
  readonly #retry = new WaiterQueue(() => this.#gate.release());
  readonly #room: Room = { pick: () => this.#policy(this.#assigned), retry: this.#retry };

  constructor(opts: RevisionThrottlerOptions) {
    const cc = opts.containerConcurrency;
    if (!Number.isInteger(cc) || cc < 0) throw new RangeError(`containerConcurrency must be >= 0, got ${cc}`);
    const limit = opts.queueLimit ?? DEFAULT_QUEUE_LIMIT;
    this.containerConcurrency = cc;
    this.#gate =
      cc === 0
        ? new InfiniteBreaker(limit)
        : new Breaker({
            queueDepth: Math.max(1, limit),
            maxConcurrency: MAX_INT32,
            initialCapacity: 0,
            maxWaiting: limit,
          });
    this.#policy = policyFor(cc, opts.random ?? Math.random);
  }

  /** The revision gate's capacity (an infinite breaker reports 0 or 1). */
  get capacity(): number {
    return this.#gate.capacity;
  }

  /** Requests admitted or waiting. */
  get inFlight(): number {
    return this.#gate.inFlight;
  }

  /** Requests waiting for capacity (in the gate, or admitted and waiting for a pod with room). */
  get waiting(): number {
    return this.#gate.waiting + this.#retry.size;
  }

  /** Every tracker, sorted by destination. */
  get podTrackers(): readonly PodTracker[] {
    return this.#sorted;
  }

  /** The ClusterIP requests go to while routing through it; undefined while routing to pods. */
  get clusterIP(): string | undefined {
    return this.#clusterIP?.dest;
  }

  /** The trackers this activator sends to (its subset when activators share pods; the ClusterIP's alone). */
  get assignedTrackers(): readonly PodTracker[] {
    return this.#assigned;
  }

  /** Replaces the healthy destinations (back to pod routing); trackers of kept pods keep their in-flight counts. */
  updateDestinations(dests: readonly string[], backendCount = dests.length): void {
    this.#clusterIP = undefined;
    const next = new Map<string, PodTracker>();
    for (const d of dests) {
      next.set(d, this.#trackers.get(d) ?? new PodTracker(d, this.containerConcurrency));
    }
    this.#trackers.clear();
    for (const [d, t] of next) this.#trackers.set(d, t);
    this.#sorted = [...next.values()].sort((a, b) => (a.dest < b.dest ? -1 : a.dest > b.dest ? 1 : 0));
    this.updateCapacity(backendCount);
  }

  /**
   * Routes through the revision's ClusterIP (d.2, d.3 fallback): one tracker with no per-pod limit, and
   * capacity CC x `backendCount` shared among the activators (no trackers counted, no pod subsetting).
   * `backendCount` 0 closes the gate as having no pods does. `updateDestinations` returns to pod routing.
   */
  updateClusterIP(dest: string, backendCount: number): void {
    // The same ClusterIP keeps its tracker so releases of requests in flight stay balanced.
    if (this.#clusterIP?.dest !== dest) this.#clusterIP = new PodTracker(dest, 0);
    this.#trackers.clear();
    this.#sorted = [];
    this.updateCapacity(backendCount);
  }

  /** Sets this activator's place among the revision's activators (index -1 = unknown: use every pod). */
  updateActivators(numActivators: number, activatorIndex: number): void {
    this.#numActivators = numActivators;
    this.#activatorIndex = activatorIndex;
    this.updateCapacity(this.#backendCount);
  }

  /** Same, from the sorted ready activator IPs of the revision and this activator's IP. */
  updateActivatorIps(sortedIps: readonly string[], self: string): void {
    this.updateActivators(sortedIps.length, inferActivatorIndex(sortedIps, self));
  }

  /** Re-assigns trackers and recomputes the gate's capacity for `backendCount` backends. */
  updateCapacity(backendCount: number): void {
    const viaClusterIP = this.#clusterIP;
    if (viaClusterIP) this.#assigned = [viaClusterIP];
    else if (this.containerConcurrency > 0) {
      this.#assigned = assignSlice(this.#sorted, this.#activatorIndex, this.#numActivators);
    } else this.#assigned = this.#sorted.slice();
    // Through a ClusterIP no tracker is counted: capacity comes from the backends alone.
    const cap = calculateCapacity(
      this.containerConcurrency,
      backendCount,
      viaClusterIP ? 0 : this.#assigned.length,
      this.#numActivators,
    );
    this.#backendCount = backendCount;
    this.#gate.updateConcurrency(cap);
    // Each parked caller tries once more; one that still finds no room goes back to the tail.
    for (let n = this.#retry.size; n > 0 && this.#retry.wakeHead(); n--) {}
  }

  /** Admits and reserves a pod without waiting; undefined when that is not possible right now. */
  tryAcquire(): PodTracker | undefined {
    if (!this.#gate.tryAcquire()) return undefined;
    const t = this.#policy(this.#assigned);
    if (t === undefined) this.#gate.release();
    return t;
  }

  /**
   * Waits (in arrival order, bounded) for capacity, then reserves a pod: `who.granted(tracker)` once it has
   * one, `who.refused(QueueFullError)` when the queue is full. Either may run before this returns, and then
   * it returns undefined; otherwise the ticket, whose `cancel` leaves the queue holding nothing. Costs one
   * small object per waiter: no promise, signal or closure.
   */
  park(who: Answer<PodTracker>): Ticket | undefined {
    const fast = this.tryAcquire();
    if (fast) {
      who.granted(fast);
      return undefined;
    }
    const w = new ThrottleWaiter(this.#room, who);
    if (!this.#gate.enqueue(w)) {
      who.refused(new QueueFullError());
      return undefined;
    }
    return w.queue ? w : undefined;
  }

  /** The promise form of {@link park}; a fired `signal` leaves the queue and rejects. */
  acquire(signal?: AbortSignal): Promise<PodTracker> {
    const fast = this.tryAcquire();
    if (fast) return Promise.resolve(fast);
    return waitFor(signal, (who) => this.park(who));
  }

  /**
   * Refuses every waiting caller with `err` (the revision is known to be failing): those queued for
   * admission, then those admitted but still looking for a pod, whose admissions are given back.
   */
  rejectWaiting(err: Error): void {
    this.#gate.rejectWaiting(err);
    const admitted = this.#retry.size;
    this.#retry.rejectAll(err);
    for (let i = 0; i < admitted; i++) this.#gate.release();
  }

  /** Gives back what `tryAcquire` / `acquire` returned. */
  release(tracker: PodTracker): void {
    tracker.release();
    // The pod's freed room goes to the earliest admitted caller still looking for one, before its admission.
    this.#retry.wakeHead();
    this.#gate.release();
  }

  /** Waits for capacity, runs `fn` with the reserved destination, releases however `fn` ends. */
  async try<T>(signal: AbortSignal | undefined, fn: (dest: string) => T | Promise<T>): Promise<T> {
    const t = this.tryAcquire() ?? (await this.acquire(signal));
    try {
      return await fn(t.dest);
    } finally {
      this.release(t);
    }
  }
}
