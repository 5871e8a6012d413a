import type { Clock, TimerHandle } from "@thaw/clock";

/** Knative's three per-request timers (knative-spec.md c.4), in milliseconds; 0 = off. */
export interface TimeoutPolicy {
  totalMs: number;
  responseStartMs: number;
  idleMs: number;
}

/** What the sweeper needs from a request in flight. */
export interface Timed {
  /** When the request started. */
  startedAt: number;
  /** When the proxy last wrote to the client (0 = nothing yet). */
  lastWriteAt: number;
  /** Called once when one of the timers has fired. */
  timeout(): void;
  /** Intrusive list links, owned by the sweeper. */
  prevTimed: Timed | null;
  nextTimed: Timed | null;
}

/** The first moment `t` is overdue under `policy`, or Infinity. */
export function deadlineOf(t: Timed, policy: TimeoutPolicy): number {
  let at = policy.totalMs > 0 ? t.startedAt + policy.totalMs : Number.POSITIVE_INFINITY;
  if (t.lastWriteAt === 0 && policy.responseStartMs > 0)
    at = Math.min(at, t.startedAt + policy.responseStartMs);
  if (policy.idleMs > 0) at = Math.min(at, (t.lastWriteAt || t.startedAt) + policy.idleMs);
  return at;
}

/**
 * One timer for all requests instead of three per request: requests sit in an intrusive list (O(1) add
 * and remove, no allocation) and a sweep every `tickMs` fires the overdue ones. Timers are therefore late
 * by up to `tickMs`, which is small next to Knative's whole-second settings.
 */
export class TimeoutSweeper {
  private head: Timed | null = null;
  private timer: TimerHandle | null = null;
  private size = 0;
  /** Whether every write must be timestamped (only the idle timer needs it). */
  readonly idleWatched: boolean;

  constructor(
    private readonly clock: Clock,
    private readonly policy: TimeoutPolicy,
    private readonly tickMs = 50,
  ) {
    this.idleWatched = policy.idleMs > 0;
  }

  /** Starts watching `t`. */
  add(t: Timed): void {
    t.prevTimed = null;
    t.nextTimed = this.head;
    if (this.head) this.head.prevTimed = t;
    this.head = t;
    if (++this.size === 1 && this.timer === null) this.schedule();
  }

  /** Stops watching `t` (safe to call twice). */
  remove(t: Timed): void {
    if (t.prevTimed === null && this.head !== t) return;
    if (t.prevTimed) t.prevTimed.nextTimed = t.nextTimed;
    else this.head = t.nextTimed;
    if (t.nextTimed) t.nextTimed.prevTimed = t.prevTimed;
    t.prevTimed = null;
    t.nextTimed = null;
    this.size--;
  }

  /** Requests watched now. */
  count(): number {
    return this.size;
  }

  /** Stops the sweep timer. */
  stop(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => this.sweep(), this.tickMs);
    // Keep the process alive only for the server sockets, never for this housekeeping timer.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private sweep(): void {
    this.timer = null;
    const now = this.clock.now();
    let t = this.head;
    while (t) {
      const next = t.nextTimed;
      if (deadlineOf(t, this.policy) <= now) {
        this.remove(t);
        t.timeout();
      }
      t = next;
    }
    if (this.size > 0) this.schedule();
  }
}
