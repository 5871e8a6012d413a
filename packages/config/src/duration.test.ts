import { describe, expect, it } from "vitest";
import { parseDurationMs } from "./duration.js";

describe("parseDurationMs", () => {
  it.each([
    ["30s", 30_000],
    ["1m30s", 90_000],
    ["250ms", 250],
    ["1.5h", 5_400_000],
    ["0", 0],
    ["45", 45_000],
    [12, 12_000],
  ])("%s -> %s ms", (input, ms) => expect(parseDurationMs(input)).toBe(ms));

  it.each([["soon"], ["-1s"], ["1x"], [""], ["s"], [-3], ["30s junk"]])("rejects %j", (input) => {
    expect(parseDurationMs(input)).toBeUndefined();
  });
});
