import { describe, expect, it } from "vitest";
import { fixed, median, quantile } from "./stats.mjs";

describe("median", () => {
  it.each([
    ["one value", [7], 7],
    ["odd count, unsorted", [3, 1, 2], 2],
    ["even count: mean of the middle two", [4, 1, 3, 2], 2.5],
    ["non-finite values are left out", [Number.NaN, 5, Number.POSITIVE_INFINITY, 1, 3], 3],
    ["negative values", [-2, -8, 4], -2],
  ])("%s", (_name, xs, want) => {
    expect(median(xs)).toBe(want);
  });

  it("is NaN without finite values", () => {
    expect(median([])).toBeNaN();
    expect(median([Number.NaN])).toBeNaN();
  });

  it("leaves its input in order", () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

describe("quantile (nearest rank)", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose
  it.each([
    ["p50 of 1..100", hundred, 50, 50],
    ["p95 of 1..100", hundred, 95, 95],
    ["p99 of 1..100", hundred, 99, 99],
    ["p100 of 1..100", hundred, 100, 100],
    ["p50 of an even count is the lower middle", [10, 20, 30, 40], 50, 20],
    ["p50 of an odd count is the middle", [5, 1, 3, 4, 2], 50, 3],
    ["p99 of five values is the largest", [5, 1, 3, 4, 2], 99, 5],
    ["p0 is the smallest", [5, 1, 3], 0, 1],
    ["non-finite values are left out", [Number.NaN, 2, 1], 100, 2],
  ])("%s", (_name, xs, p, want) => {
    expect(quantile(xs, p)).toBe(want);
  });

  it("is NaN without finite values", () => {
    expect(quantile([], 50)).toBeNaN();
  });
});

describe("fixed", () => {
  it.each([
    ["two decimals by default", 1.23456, undefined, undefined, "1.23"],
    ["given decimals", 1234.5, 0, undefined, "1235"],
    ["NaN gives the placeholder", Number.NaN, 2, undefined, "-"],
    ["infinity gives the placeholder", Number.POSITIVE_INFINITY, 2, undefined, "-"],
    ["own placeholder", Number.NaN, 2, "n/a", "n/a"],
  ])("%s", (_name, x, digits, missing, want) => {
    expect(fixed(x, digits, missing)).toBe(want);
  });
});
