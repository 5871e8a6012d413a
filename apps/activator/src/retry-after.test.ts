import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "./retry-after.js";

describe("retryAfterSeconds", () => {
  it.each([
    { name: "no history", ms: [], want: 1 },
    { name: "fast cold starts round up to 1", ms: [120, 300], want: 1 },
    { name: "mean rounded up", ms: [1500, 2600], want: 3 },
    { name: "only the last five count", ms: [60_000, 1000, 1000, 1000, 1000, 1000], want: 1 },
    { name: "capped at 60", ms: [600_000], want: 60 },
    { name: "garbage ignored", ms: [Number.NaN, -5, 4200], want: 5 },
  ])("$name", ({ ms, want }) => {
    expect(retryAfterSeconds(ms)).toBe(want);
  });
});
