/**
 * @thaw/clock: the time capability every stateful part of Thaw takes as a parameter.
 * Tests use `ManualClock` from `@thaw/clock/testing`.
 */
export { type Clock, sleepWith, type TimerHandle } from "./clock.js";
export { systemClock } from "./system-clock.js";
