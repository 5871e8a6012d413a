import type { Answer, PodTracker, RevisionThrottler } from "@thaw/activation";
import type { Lease, LeaseWaiter } from "./ports.js";

/**
 * A lease on one pod of a throttler, and while it waits the throttler's answer to a {@link LeaseWaiter}:
 * one object per waiting request. Its release gives the pod back once, however often it is called.
 */
export class TrackerLease implements Lease, Answer<PodTracker> {
  dest = "";
  readonly #rt: RevisionThrottler;
  readonly #who: LeaseWaiter | undefined;
  #tracker: PodTracker | undefined;

  constructor(rt: RevisionThrottler, who: LeaseWaiter | undefined) {
    this.#rt = rt;
    this.#who = who;
  }

  granted(t: PodTracker): void {
    this.#tracker = t;
    this.dest = t.dest;
    this.#who?.granted(this);
  }

  refused(err: Error): void {
    this.#who?.refused(err);
  }

  release(): void {
    const t = this.#tracker;
    if (!t) return;
    this.#tracker = undefined;
    this.#rt.release(t);
  }
}
