import { describe, expect, it } from "vitest";
import { DEFAULT_AUTOSCALER_CONFIG } from "../config.js";
import type { SimulationOptions } from "./simulate.js";
import { simulate } from "./simulate.js";
import type { TraceRequest } from "./trace.js";

/** `rps` requests per second of `durationMs` each, from `fromMs` for `seconds` seconds. */
function constant(rps: number, durationMs: number, fromMs: number, seconds: number): TraceRequest[] {
  const out: TraceRequest[] = [];
  const gap = 1000 / rps;
  for (let i = 0; i < rps * seconds; i++) out.push({ arrivalMs: fromMs + i * gap, durationMs });
  return out;
}

/** Target 10 concurrent per pod, unlimited containerConcurrency (no queueing), TBC 0. */
function options(over: Partial<SimulationOptions> = {}, cfg: Partial<typeof DEFAULT_AUTOSCALER_CONFIG> = {}) {
  return {
    config: {
      ...DEFAULT_AUTOSCALER_CONFIG,
      containerConcurrencyTargetDefault: 10,
      containerConcurrencyTargetFraction: 1,
      targetBurstCapacity: 0,
      ...cfg,
    },
    annotations: {},
    containerConcurrency: 0,
    startupDelayMs: 0,
    ...over,
  };
}

describe("simulate", () => {
  it("a step from 0 to 20 concurrent requests settles at 2 pods (target 10), one cold start", () => {
    const r = simulate(constant(20, 1000, 0, 120), options());
    expect(r.coldStarts).toBe(1);
    expect(r.coldRequests).toBe(1); // only the first request finds no pod; start-up takes 0 ms
    expect(r.queued.p99Ms).toBe(0);
    const steady = r.timeline.filter((p) => p.tMs >= 10_000 && p.tMs <= 120_000);
    expect(steady.length).toBe(56);
    expect(new Set(steady.map((p) => p.replicas))).toEqual(new Set([2]));
    expect(new Set(steady.map((p) => p.concurrency))).toEqual(new Set([20]));
    expect(r.maxReplicas).toBe(2);
    expect(r.scaledToZeroAtMs.length).toBe(1);
  });

  it("a burst from 10 to 50 concurrent starts panic at the first tick the panic window sees it", () => {
    // 10 concurrent for 60 s, then 50 concurrent for 10 s, then 10 again until 120 s.
    const trace = [
      ...constant(10, 1000, 0, 60),
      ...constant(50, 1000, 60_000, 10),
      ...constant(10, 1000, 70_000, 50),
    ];
    const r = simulate(trace, options({ initialReplicas: 1 }));
    // Each second's stat is recorded at the end of that second. At the 60 s tick no burst second is in yet;
    // at 62 s the 6 s panic window holds 57..60 s at 10 and 61..62 s at 50: 140 / 6 = 23.3 → 3 pods, and
    // 3 / 1 ready pod ≥ 200 % → panic.
    expect(r.panicPeriods.length).toBe(1);
    const p = r.panicPeriods[0] as { startMs: number; endMs: number };
    expect(p.startMs).toBe(62_000);
    // Panic holds for a stable window (60 s) after the last over-threshold tick, and never scales down.
    expect(p.endMs).toBeGreaterThanOrEqual(122_000);
    const inPanic = r.timeline.filter((t) => t.panicking);
    for (let i = 1; i < inPanic.length; i++) {
      expect(inPanic[i]?.desired).toBeGreaterThanOrEqual(inPanic[i - 1]?.desired as number);
    }
    expect(r.maxReplicas).toBe(5);
  });

  it("one request, then idle: scaled to zero at stable window + grace period", () => {
    const cases = [
      { name: "6s window, 30s grace", window: 6000, grace: 30_000 },
      { name: "10s window, 12s grace", window: 10_000, grace: 12_000 },
    ];
    for (const c of cases) {
      const r = simulate(
        [{ arrivalMs: 0, durationMs: 1000 }],
        options({}, { stableWindowMs: c.window, scaleToZeroGracePeriodMs: c.grace }),
      );
      expect(r.coldStarts, c.name).toBe(1);
      // The poke's stat leaves the stable window after `window`: desired 0, revision marked inactive;
      // the last pod goes once it has been inactive for the grace period.
      expect(r.scaledToZeroAtMs, c.name).toEqual([c.window + c.grace]);
      expect(r.panicPeriods, c.name).toEqual([]);
    }
  });

  it("requests queue while the first pod starts (containerConcurrency 1)", () => {
    const r = simulate(
      [
        { arrivalMs: 0, durationMs: 100 },
        { arrivalMs: 500, durationMs: 100 },
      ],
      options({ startupDelayMs: 3000, containerConcurrency: 1 }),
    );
    expect(r.coldRequests).toBe(2);
    expect(r.queued.maxMs).toBe(3000);
    // The pod is ready at 3 s and takes the first request; the second waits for it to finish at 3.1 s,
    // before a second pod (asked for at the 2 s tick) is ready at 5 s.
    expect(r.queued.p50Ms).toBe(2600);
    expect(r.queued.waited).toBe(2);
  });

  it("is deterministic", () => {
    const trace = constant(7, 300, 0, 30);
    expect(simulate(trace, options())).toEqual(simulate(trace, options()));
  });

  it("rejects a non-positive tick", () => {
    expect(() => simulate([], options({ tickMs: 0 }))).toThrow(RangeError);
  });
});
