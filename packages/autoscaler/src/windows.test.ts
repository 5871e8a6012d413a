import { describe, expect, it } from "vitest";
import { LinearWindow } from "./linear-window.js";
import { MaxWindow, TimedMaxWindow } from "./max-window.js";
import { roundToNDigits } from "./round.js";
import { podSampleSize } from "./sample-size.js";
import { smoothingCoefficient, WeightedWindow } from "./weighted-window.js";

const T = 1_700_000_010_000;

describe("LinearWindow", () => {
  it.each([
    { name: "single write", writes: [[0, 4]], at: 0, want: 4 },
    {
      name: "two seconds averaged",
      writes: [
        [0, 4],
        [1000, 2],
      ],
      at: 1000,
      want: 3,
    },
    {
      name: "same bucket adds",
      writes: [
        [0, 4],
        [400, 2],
      ],
      at: 900,
      want: 6,
    },
    {
      name: "aged buckets drop out",
      writes: [
        [0, 9],
        [1000, 3],
      ],
      at: 5000,
      want: 3 / 1,
    },
    { name: "a whole window later reads 0", writes: [[0, 9]], at: 10_000, want: 0 },
    {
      name: "rounded to 6 digits",
      writes: [
        [0, 1],
        [1000, 1],
        [2000, 0],
      ],
      at: 2000,
      want: 0.666667,
    },
  ])("$name", ({ writes, at, want }) => {
    const w = new LinearWindow(5000, 1000);
    for (const [t, v] of writes) w.record(T + (t as number), v as number);
    expect(w.windowAverage(T + at)).toBe(want);
  });

  it("is empty before the first write and a window after the last", () => {
    const w = new LinearWindow(5000, 1000);
    expect(w.isEmpty(T)).toBe(true);
    w.record(T, 1);
    expect(w.isEmpty(T + 5000)).toBe(false);
    expect(w.isEmpty(T + 6000)).toBe(true);
  });

  it("drops writes a whole window older than the newest", () => {
    const w = new LinearWindow(5000, 1000);
    w.record(T + 10_000, 1);
    w.record(T + 5000, 100);
    expect(w.bucketSum(T + 10_000)).toBe(1);
  });

  it("keeps fresh data over a resize and empties on stale data", () => {
    const w = new LinearWindow(5000, 1000);
    w.record(T, 2);
    expect(w.resize(10_000, T + 1000)).toBe(true);
    expect(w.bucketSum(T + 1000)).toBe(2);
    w.resize(20_000, T + 60_000);
    expect(w.firstWriteMs).toBeUndefined();
    expect(w.windowAverage(T + 60_000)).toBe(0);
  });

  it("rejects a non-positive window", () => {
    expect(() => new LinearWindow(0, 1000)).toThrow(RangeError);
  });
});

describe("WeightedWindow", () => {
  it("weighs the newest bucket by the smoothing coefficient", () => {
    const w = new WeightedWindow(5000, 1000);
    w.record(T, 10);
    const a = smoothingCoefficient(5);
    expect(w.windowAverage(T)).toBeCloseTo(10 * a, 12);
    // One empty second later the same bucket is one step older.
    expect(w.windowAverage(T + 1000)).toBeCloseTo(10 * a * (1 - a), 12);
  });

  it.each([
    [60, 0.2],
    [6, 0.7845565309968155],
  ])("coefficient for %i buckets is %f", (n, want) => {
    expect(smoothingCoefficient(n)).toBeCloseTo(want, 12);
  });
});

describe("MaxWindow and TimedMaxWindow", () => {
  it("forgets values older than size slots", () => {
    const w = new MaxWindow(3);
    const seen = [
      [0, 9],
      [1, 1],
      [2, 2],
      [3, 1],
    ].map(([i, v]) => {
      w.record(i as number, v as number);
      return w.current();
    });
    expect(seen).toEqual([9, 9, 9, 2]);
  });

  it("persists and restores its entries", () => {
    const w = new TimedMaxWindow(10_000, 2000);
    w.record(T, 5);
    w.record(T + 2000, 3);
    const copy = new TimedMaxWindow(10_000, 2000);
    copy.restore(w.entries());
    expect(copy.current()).toBe(5);
    expect(copy.size).toBe(5);
  });
});

describe("helpers", () => {
  it.each([
    [0, 0],
    [3, 3],
    [10, 7],
    [100, 14],
    [1000, 16],
  ])("sample size of %i pods is %i", (pop, n) => {
    expect(podSampleSize(pop)).toBe(n);
  });

  it.each([
    [2, 0.125, 0.13],
    [2, -0.125, -0.13],
    [6, 1 / 3, 0.333333],
  ])("roundToNDigits(%i, %f) = %f", (d, v, want) => {
    expect(roundToNDigits(d, v)).toBe(want);
  });
});
