import type { Answer } from "./answer.js";
import type { PodTracker } from "./pod-tracker.js";
import { Waiter, type WaiterQueue } from "./waiter-queue.js";

/** What a {@link ThrottleWaiter} needs of its throttler. */
export interface Room {
  /** A tracker with room, reserved; undefined when none has any. */
  pick(): PodTracker | undefined;
  /** Where admitted callers wait for a tracker with room. */
  retry: WaiterQueue;
}

/**
 * One caller of {@link RevisionThrottler.park}: waits in the gate's queue for an admission, then (if no pod
 * has room just then) in the throttler's retry queue; `cancel` leaves whichever it is in.
 */
export class ThrottleWaiter extends Waiter {
  readonly #room: Room;
  readonly #who: Answer<PodTracker>;

  constructor(room: Room, who: Answer<PodTracker>) {
    super();
    this.#room = room;
    this.#who = who;
  }

  granted(): void {
    const t = this.#room.pick();
    if (t) this.#who.granted(t);
    else this.#room.retry.push(this);
  }

  refused(err: Error): void {
    this.#who.refused(err);
  }
}
