import { describe, expect, it } from "vitest";
import { ColdStartLog, expectedStartMs, retryAfterSeconds } from "./cold-start-estimate.js";

describe("expectedStartMs", () => {
  it.each([
    { name: "no history: no estimate", ms: [], want: undefined },
    { name: "one start is the estimate", ms: [3100], want: 3100 },
    { name: "three starts: the slowest (nearest rank of p90)", ms: [2900, 3300, 3000], want: 3300 },
    {
      name: "ten starts: one outlier does not move it",
      ms: [3000, 3000, 3100, 3000, 30_000, 3050, 3000, 3200, 3000, 3000],
      want: 3200,
    },
    { name: "only the last ten count", ms: [60_000, ...Array(10).fill(2000)], want: 2000 },
    { name: "garbage ignored", ms: [Number.NaN, -5, 4200], want: 4200 },
  ])("$name", ({ ms, want }) => {
    expect(expectedStartMs(ms)).toBe(want);
  });
});

describe("retryAfterSeconds", () => {
  it.each([
    { name: "no history: 1 s", ms: [], want: 1 },
    { name: "fast cold starts round up to 1", ms: [120, 300], want: 1 },
    { name: "the high percentile, rounded up", ms: [1500, 2600], want: 3 },
    { name: "a 3 s app says 3 or more", ms: [3050, 2980, 3010], want: 4 },
    { name: "capped at 60", ms: [600_000], want: 60 },
  ])("$name", ({ ms, want }) => {
    expect(retryAfterSeconds(ms)).toBe(want);
  });
});

describe("ColdStartLog", () => {
  it("keeps the last ten per key and forgets the oldest key past its bound", () => {
    const log = new ColdStartLog(2);
    for (let i = 1; i <= 12; i++) log.record("a", i * 1000);
    expect(log.recent("a")).toEqual([3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000, 11_000, 12_000]);
    expect(log.expectedMs("a")).toBe(11_000);
    log.record("b", 500);
    log.record("c", 700);
    expect(log.recent("a")).toEqual([]);
    expect(log.retryAfterSeconds("c")).toBe(1);
    expect(log.expectedMs("missing")).toBeUndefined();
  });
});
