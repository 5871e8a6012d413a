import { type Clock, systemClock } from "@thaw/clock";
import { ManualClock } from "@thaw/clock/testing";

// Code that waits takes a Clock, so tests can move time by hand instead of sleeping.
async function retry(clock: Clock, attempt: () => boolean, delayMs: number, tries: number): Promise<number> {
  for (let n = 1; n <= tries; n++) {
    if (attempt()) return n;
    await clock.sleep(delayMs);
  }
  return -1;
}

// In a test: ManualClock stands still until advance() fires the due timers.
const clock = new ManualClock(0);
let calls = 0;
const done = retry(clock, () => ++calls === 3, 1000, 5);
await clock.advance(2000);
console.log(`succeeded on try ${await done} at t=${clock.now()} ms`); // → succeeded on try 3 at t=2000 ms

// In production: the system clock (Date.now and the runtime's timers).
const started = systemClock.now();
await systemClock.sleep(10);
console.log(`slept ${systemClock.now() - started >= 10 ? "at least" : "less than"} 10 ms`); // → slept at least 10 ms
