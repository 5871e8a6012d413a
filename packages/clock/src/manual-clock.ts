import { type Clock, sleepWith, type TimerHandle } from "./clock.js";

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

/** Lets the event loop run promise callbacks that a fired timer set off. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A test clock: time stands still until `advance` moves it, firing due timers in time order. */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers: Timer[] = [];

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.push({ id, due: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.#timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due, earliest first (ties in creation
   * order); timers that fired timers schedule within the span fire too. Promise callbacks queued by a
   * timer run before the next timer fires, so async code observes time as it would in real life.
   */
  async advance(ms: number): Promise<void> {
    if (ms < 0) throw new RangeError(`advance(ms): ms must be >= 0, got ${ms}`);
    const end = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#earliestDue(end);
      if (!next) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = next.due;
      next.fn();
      await settle();
    }
    this.#now = end;
  }

  /** Moves time to an absolute instant, as `advance` does. */
  advanceTo(ms: number): Promise<void> {
    return this.advance(Math.max(0, ms - this.#now));
  }

  #earliestDue(end: number): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers) {
      if (t.due <= end && (!best || t.due < best.due || (t.due === best.due && t.id < best.id))) best = t;
    }
    return best;
  }
}
