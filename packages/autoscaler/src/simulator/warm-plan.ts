import { nextFiring } from "../schedule/cron-search.js";
import { activeWindow, type ScheduleWindow } from "../schedule/schedule.js";

/**
 * The warm floor over a simulation: schedule windows (read at `startEpochMs` + trace time) and wake hints
 * (each holds 1 pod for `ttlMs` from its time). Caches the window answer until it can next change, so a
 * day-long trace does not search crons on every tick.
 */
export class WarmPlan {
  #hintUntil = Number.NEGATIVE_INFINITY;
  #windowMin = 0;
  #validUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly windows: readonly ScheduleWindow[],
    private readonly startEpochMs: number,
  ) {}

  /** A wake hint at trace time `t` for `ttlMs`. */
  hint(t: number, ttlMs: number): void {
    this.#hintUntil = Math.max(this.#hintUntil, t + ttlMs);
  }

  /** The floor at trace time `t`. */
  floorAt(t: number): number {
    const hint = t < this.#hintUntil ? 1 : 0;
    if (this.windows.length === 0) return hint;
    if (t >= this.#validUntil) this.#refresh(t);
    return Math.max(hint, this.#windowMin);
  }

  #refresh(t: number): void {
    const at = this.startEpochMs + t;
    const open = activeWindow(this.windows, at);
    this.#windowMin = open?.minScale ?? 0;
    // Until the open window ends, or the next one opens; re-read each minute past the end at worst.
    let next = open?.untilMs ?? Number.POSITIVE_INFINITY;
    if (!open) {
      for (const w of this.windows) next = Math.min(next, nextFiring(w.start, w.timezone, at) ?? next);
    }
    this.#validUntil = Math.max(t + 1, next - this.startEpochMs);
  }
}
