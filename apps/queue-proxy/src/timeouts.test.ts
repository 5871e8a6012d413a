import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { deadlineOf, type Timed, TimeoutSweeper } from "./timeouts.js";

function timed(startedAt: number, fired: string[], name: string): Timed {
  return { startedAt, lastWriteAt: 0, prevTimed: null, nextTimed: null, timeout: () => fired.push(name) };
}

describe("deadlineOf", () => {
  const rows = [
    {
      name: "total only",
      policy: { totalMs: 1000, responseStartMs: 0, idleMs: 0 },
      lastWriteAt: 0,
      expect: 1000,
    },
    {
      name: "response-start before the first write",
      policy: { totalMs: 1000, responseStartMs: 200, idleMs: 0 },
      lastWriteAt: 0,
      expect: 200,
    },
    {
      name: "response-start off once written",
      policy: { totalMs: 1000, responseStartMs: 200, idleMs: 0 },
      lastWriteAt: 100,
      expect: 1000,
    },
    {
      name: "idle counts from the start while nothing was written",
      policy: { totalMs: 1000, responseStartMs: 0, idleMs: 300 },
      lastWriteAt: 0,
      expect: 300,
    },
    {
      name: "idle counts from the last write",
      policy: { totalMs: 1000, responseStartMs: 0, idleMs: 300 },
      lastWriteAt: 500,
      expect: 800,
    },
    {
      name: "everything off",
      policy: { totalMs: 0, responseStartMs: 0, idleMs: 0 },
      lastWriteAt: 0,
      expect: Number.POSITIVE_INFINITY,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const t = timed(0, [], "x");
      t.lastWriteAt = row.lastWriteAt;
      expect(deadlineOf(t, row.policy)).toBe(row.expect);
    });
  }
});

describe("TimeoutSweeper", () => {
  it("fires overdue requests once, within one tick, and forgets removed ones", async () => {
    const clock = new ManualClock(0);
    const sweeper = new TimeoutSweeper(clock, { totalMs: 100, responseStartMs: 0, idleMs: 0 }, 10);
    const fired: string[] = [];
    const a = timed(0, fired, "a");
    const b = timed(0, fired, "b");
    const c = timed(50, fired, "c");
    sweeper.add(a);
    sweeper.add(b);
    sweeper.add(c);
    sweeper.remove(b);
    sweeper.remove(b); // twice is harmless
    expect(sweeper.count()).toBe(2);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(11);
    expect(fired).toEqual(["a"]);
    await clock.advance(50);
    expect(fired).toEqual(["a", "c"]);
    expect(sweeper.count()).toBe(0);
    sweeper.stop();
  });
});
