import { describe, expect, it } from "vitest";
import { activationPolicyPicker } from "./upstream-picker.js";

const pods = ["a:1", "b:2", "c:3"];

function picks(cc: number, random: () => number, n = 6): (string | undefined)[] {
  const picker = activationPolicyPicker({ random, containerConcurrencyFor: () => cc });
  const chooser = picker.chooser("ns/rev", pods, undefined);
  return Array.from({ length: n }, () => pods[chooser.choose()]);
}

describe("activationPolicyPicker (the activator's policy by containerConcurrency)", () => {
  it("CC > 3: round robin", () => {
    expect(picks(10, () => 0)).toEqual(["a:1", "b:2", "c:3", "a:1", "b:2", "c:3"]);
  });
  it("CC 1-3: first available (reservations are released at once, so always the first pod)", () => {
    expect(picks(2, () => 0)).toEqual(Array(6).fill("a:1"));
  });
  it("CC 0: random choice of two, seeded by the random source", () => {
    const seen = new Set(
      picks(
        0,
        (() => {
          let i = 0;
          const xs = [0.01, 0.4, 0.7, 0.95];
          return () => xs[i++ % xs.length] as number;
        })(),
        12,
      ),
    );
    expect(seen.size).toBeGreaterThan(1);
    for (const p of seen) expect(pods).toContain(p);
  });
  it("no endpoints: no pick", () => {
    expect(
      activationPolicyPicker({ random: () => 0 })
        .chooser("k", [], undefined)
        .choose(),
    ).toBe(-1);
  });
  it("keeps round-robin position when the endpoint list changes", () => {
    const picker = activationPolicyPicker({ random: () => 0, containerConcurrencyFor: () => 10 });
    const first = picker.chooser("k", ["a:1", "b:2"], undefined);
    expect(first.choose()).toBe(0);
    expect(picker.chooser("k", ["a:1", "b:2", "c:3"], first).choose()).toBe(1);
  });
});
