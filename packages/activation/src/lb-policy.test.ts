import { describe, expect, it } from "vitest";
import { firstAvailablePolicy, policyFor, randomChoice2Policy, roundRobinPolicy } from "./lb-policy.js";
import { PodTracker } from "./pod-tracker.js";

const trackers = (n: number, cc: number) => Array.from({ length: n }, (_, i) => new PodTracker(`p${i}`, cc));

describe("policies", () => {
  it.each([
    { cc: 0, name: "randomChoice2" },
    { cc: 1, name: "firstAvailable" },
    { cc: 3, name: "firstAvailable" },
    { cc: 4, name: "roundRobin" },
  ])("CC $cc picks $name", ({ cc }) => {
    const ts = trackers(3, cc);
    const p = policyFor(cc, () => 0);
    const picks = [p(ts)?.dest, p(ts)?.dest];
    if (cc === 0) expect(picks[1]).not.toBe(picks[0]);
    else if (cc <= 3) expect(picks).toEqual(cc === 1 ? ["p0", "p1"] : ["p0", "p0"]);
    else expect(picks).toEqual(["p0", "p1"]);
  });

  it("first available returns nothing when all are full", () => {
    const ts = trackers(2, 1);
    const p = firstAvailablePolicy();
    p(ts);
    p(ts);
    expect(p(ts)).toBeUndefined();
  });

  it("round robin wraps when the list shrinks", () => {
    const ts = trackers(3, 5);
    const p = roundRobinPolicy();
    p(ts);
    p(ts);
    expect(p(ts.slice(0, 1))?.dest).toBe("p0");
  });

  it("random choice of two never picks the busiest of three, and reaches every pair", () => {
    const ts = trackers(3, 0);
    (ts[0] as PodTracker).inFlight = 5;
    const picked = new Map<string, number>();
    for (let k = 0; k < 120; k++) {
      const p = randomChoice2Policy(() => k / 120);
      const t = p(ts);
      picked.set(t?.dest ?? "none", (picked.get(t?.dest ?? "none") ?? 0) + 1);
      t?.release();
    }
    expect(picked.has("p0")).toBe(false);
    // p1 and p2 tie on load: the random draws send traffic to both.
    expect(picked.get("p1")).toBeGreaterThan(20);
    expect(picked.get("p2")).toBeGreaterThan(20);
  });

  it.each([2, 5, 1000])("random choice of two spreads ties evenly over %i idle trackers", (n) => {
    const ts = trackers(n, 0);
    const p = randomChoice2Policy(() => 0.123);
    const counts = new Map<string, number>();
    const picks = n * 2000;
    for (let k = 0; k < picks; k++) {
      const t = p(ts) as PodTracker;
      counts.set(t.dest, (counts.get(t.dest) ?? 0) + 1);
      t.release();
    }
    // Every tracker is reached and none gets more than 1.25x its fair share (2000 each).
    expect(counts.size).toBe(n);
    for (const c of counts.values()) expect(c).toBeLessThan(2500);
    for (const c of counts.values()) expect(c).toBeGreaterThan(1500);
  });

  it("random choice of two always takes the less loaded of the pair it draws", () => {
    const ts = trackers(2, 0);
    (ts[1] as PodTracker).inFlight = 1;
    const p = randomChoice2Policy(() => 0.5);
    for (let k = 0; k < 50; k++) {
      const t = p(ts) as PodTracker;
      expect(t.dest).toBe("p0");
      t.release();
    }
  });
});
