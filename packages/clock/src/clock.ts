/** An opaque handle for a timer created by a {@link Clock}. */
export type TimerHandle = { readonly __timer: unique symbol } | number | object;

/** Time as a capability: stateful code holds one, pure decisions take `now` instead. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
  /** Resolves after `ms`; rejects with the signal's reason when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Builds `sleep` out of a clock's own timers, so every clock aborts the same way. With the clock's `now`, a
 * sleep lasts at least `ms` by that clock: runtimes fire a timer by their own loop time, which may lag the
 * wall clock (Node reads it once per turn of its loop), so a timer can fire a millisecond or more before
 * `ms` have passed by `Date.now()`, and more on a loaded machine. The rest is then waited out.
 */
export function sleepWith(
  clock: Pick<Clock, "setTimeout" | "clearTimeout"> & Partial<Pick<Clock, "now">>,
  ms: number,
  signal?: AbortSignal,
) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const started = clock.now?.();
    let handle: TimerHandle;
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    let rearms = 0;
    const arm = (wait: number) => {
      handle = clock.setTimeout(() => {
        // Each rest at most `ms`, and at most 3 of them: a wall clock set back ends it within 4 × ms.
        const now = clock.now?.();
        const left = started === undefined || now === undefined ? 0 : Math.min(ms, started + ms - now);
        if (left > 0 && rearms++ < 3) {
          arm(left);
          return;
        }
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, wait);
    };
    arm(ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
