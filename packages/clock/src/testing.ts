/** @thaw/clock/testing: a clock that moves only when a test says so. */
export { ManualClock } from "./manual-clock.js";
