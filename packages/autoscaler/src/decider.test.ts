import { describe, expect, it } from "vitest";
import { Decider } from "./decider.js";
import type { DeciderSpec } from "./decider-spec.js";

const spec: DeciderSpec = {
  scalingMetric: "concurrency",
  targetValue: 10,
  totalValue: 10,
  targetBurstCapacity: 0,
  panicThreshold: 2,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  activatorCapacity: 100,
  stableWindowMs: 60_000,
  scaleDownDelayMs: 0,
  initialScale: 1,
  reachable: true,
  activationScale: 0,
};

describe("Decider", () => {
  it.each([
    { name: "stable load", ready: 2, stable: 20, panic: 20, want: 2 },
    { name: "scale-down limited by rate 2", ready: 10, stable: 10, panic: 10, want: 5 },
    { name: "unreachable scales down at once", ready: 10, stable: 10, panic: 10, want: 1, reachable: false },
    { name: "zero load goes to zero from one pod", ready: 1, stable: 0, panic: 0, want: 0 },
    { name: "activation scale lifts non-zero", ready: 1, stable: 1, panic: 1, want: 3, activationScale: 3 },
  ])("$name", ({ ready, stable, panic, want, reachable, activationScale }) => {
    const d = new Decider(
      { ...spec, reachable: reachable ?? true, activationScale: activationScale ?? 0 },
      1,
      0,
    );
    expect(d.scale(0, { readyPods: ready, metrics: { stable, panic } }).desiredPodCount).toBe(want);
  });

  it("panics, holds the peak, and stops a stable window after the last surge", () => {
    const d = new Decider(spec, 1, 0);
    expect(d.scale(0, { readyPods: 1, metrics: { stable: 10, panic: 40 } })).toMatchObject({
      desiredPodCount: 4,
    });
    expect(d.panicking).toBe(true);
    // Load drops but panic holds the peak.
    expect(d.scale(30_000, { readyPods: 4, metrics: { stable: 10, panic: 10 } }).desiredPodCount).toBe(4);
    expect(d.scale(60_000, { readyPods: 4, metrics: { stable: 10, panic: 10 } }).desiredPodCount).toBe(4);
    expect(d.scale(60_001, { readyPods: 4, metrics: { stable: 10, panic: 10 } }).desiredPodCount).toBe(2);
    expect(d.panicking).toBe(false);
  });

  it("returns an invalid result on lister or metric errors", () => {
    const d = new Decider(spec, 1, 0);
    expect(d.scale(0, { readyPods: null, metrics: { stable: 1, panic: 1 } }).scaleValid).toBe(false);
    expect(d.scale(0, { readyPods: 1, metrics: null }).scaleValid).toBe(false);
  });

  it("creates the scale-down delay window only when built with a delay", () => {
    const d = new Decider(spec, 0, 0);
    d.update({ ...spec, scaleDownDelayMs: 10_000 });
    expect(d.hasDelayWindow).toBe(false);
    const delayed = new Decider({ ...spec, scaleDownDelayMs: 10_000 }, 0, 0);
    expect(delayed.scale(0, { readyPods: 4, metrics: { stable: 40, panic: 40 } }).desiredPodCount).toBe(4);
    expect(delayed.scale(2000, { readyPods: 4, metrics: { stable: 0, panic: 0 } }).desiredPodCount).toBe(4);
    expect(delayed.scale(10_000, { readyPods: 4, metrics: { stable: 0, panic: 0 } }).desiredPodCount).toBe(2);
  });

  it("snapshots and restores its state", () => {
    const d = new Decider({ ...spec, scaleDownDelayMs: 4000 }, 3, 1000);
    expect(d.panicking).toBe(true);
    const s = d.snapshot();
    const e = new Decider({ ...spec, scaleDownDelayMs: 4000 }, 0, 0);
    e.restore(s);
    expect(e.snapshot()).toEqual(s);
    expect(e.maxPanicPods).toBe(3);
  });
});
