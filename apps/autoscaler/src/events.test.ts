import { describe, expect, it } from "vitest";
import { type RevisionStatus, sameStatus } from "./events.js";

const base: RevisionStatus = {
  namespace: "default",
  name: "hello",
  desiredScale: 2,
  readyPods: 2,
  panic: false,
  mode: "serve",
  stableConcurrency: 3.5,
  panicConcurrency: 4,
  excessBurstCapacity: 10,
  lastColdStartMs: null,
  scaleError: null,
  podProblem: null,
  warm: { window: null, hintUntilMs: null, minScale: 0 },
};

/** One different value per field: a field left out of the comparison fails its row. */
const changed: { [K in keyof RevisionStatus]-?: RevisionStatus[K] } = {
  namespace: "other",
  name: "hello-2",
  desiredScale: 3,
  readyPods: 1,
  panic: true,
  mode: "proxy",
  stableConcurrency: 3.500001,
  panicConcurrency: 0,
  excessBurstCapacity: -1,
  lastColdStartMs: 0,
  scaleError: "denied",
  podProblem: "app exited with code 3 before it was ready",
  warm: { window: { name: "office", minScale: 2, sinceMs: 0, untilMs: 1 }, hintUntilMs: null, minScale: 2 },
};

describe("sameStatus", () => {
  it("holds for an equal copy, and NaN equals NaN", () => {
    expect(sameStatus(base, { ...base })).toBe(true);
    const nan = { ...base, stableConcurrency: Number.NaN };
    expect(sameStatus(nan, { ...nan })).toBe(true);
  });

  it.each(Object.keys(base) as (keyof RevisionStatus)[])("sees a change of %s", (key) => {
    const other = { ...base, [key]: changed[key] };
    expect(sameStatus(base, other)).toBe(false);
    expect(sameStatus(other, base)).toBe(false);
  });
});
