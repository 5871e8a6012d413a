import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { Breaker } from "./breaker.js";
import { deadlineSignal } from "./deadline-signal.js";
import { CancelledError, DeadlineExceededError } from "./errors.js";

describe("deadlineSignal", () => {
  it.each([
    { name: "the deadline fires first", parentAbortAt: 500, error: DeadlineExceededError },
    { name: "the client goes away first", parentAbortAt: 50, error: CancelledError },
  ])("$name", async ({ parentAbortAt, error }) => {
    const clock = new ManualClock(0);
    const parent = new AbortController();
    clock.setTimeout(() => parent.abort(), parentAbortAt);
    const d = deadlineSignal(clock, 100, parent.signal);
    const b = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 0 });
    const w = b.acquire(d.signal);
    const check = expect(w).rejects.toBeInstanceOf(error);
    await clock.advance(600);
    await check;
    d.dispose();
    expect(b.inFlight).toBe(0);
  });

  it("dispose leaves no timer behind", () => {
    const clock = new ManualClock(0);
    deadlineSignal(clock, 100).dispose();
    expect(clock.pending).toBe(0);
  });
});
