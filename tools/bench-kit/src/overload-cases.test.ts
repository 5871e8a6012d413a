import { describe, expect, it } from "vitest";
import { maxInFlightAtApp } from "./overload-cases.mjs";

describe("maxInFlightAtApp", () => {
  const answer = (i: number, maxInFlight: number) => ({
    i,
    ms: 5,
    status: 200,
    body: JSON.stringify({ pid: 1, seq: i, maxInFlight }),
  });

  it("is the largest maxInFlight the app reported over the 200 answers", () => {
    const refused = { i: 9, ms: 1, status: 503, body: "queue full" };
    expect(maxInFlightAtApp([answer(0, 1), answer(1, 4), refused, answer(2, 2)])).toBe(4);
  });

  it("names the request whose 200 is not the app's JSON, and what came instead", () => {
    const empty = { i: 7, ms: 12.4, status: 200, body: "" };
    expect(() => maxInFlightAtApp([answer(0, 1), empty])).toThrow(
      /request 7 got 200 after 12 ms with a body that is not the app's JSON: ""/,
    );
  });
});
