import { type Clock, sleepWith, type TimerHandle } from "./clock.js";

/** The real clock: `Date.now()` and the runtime's own timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms) as unknown as TimerHandle,
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
  sleep: (ms, signal) => sleepWith(systemClock, ms, signal),
};
