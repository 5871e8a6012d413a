import { describe, expect, it } from "vitest";
import { activatorCount } from "./activator-count.js";
import { DEFAULT_AUTOSCALER_CONFIG } from "./config.js";
import type { ScaleState } from "./scale-apply.js";
import { activeThreshold, applyScale, nextActiveCondition, sksModeFor } from "./scale-apply.js";
import { scaleSettingsFor } from "./scale-settings.js";

const settings = scaleSettingsFor(DEFAULT_AUTOSCALER_CONFIG, {});
const NOW = 1_000_000;
const state = (over: Partial<ScaleState>): ScaleState => ({
  currentReplicas: 1,
  active: "True",
  activeSinceMs: NOW - 120_000,
  scaleTargetInitialized: true,
  reachable: true,
  sksMode: "Serve",
  ...over,
});

describe("applyScale", () => {
  it.each([
    { name: "scale up patches", desired: 3, st: {}, scale: 3, patch: 3, effects: [] },
    { name: "max-scale caps", desired: 9, st: {}, max: 4, scale: 4, patch: 4, effects: [] },
    {
      name: "unknown while active does nothing",
      desired: -1,
      st: {},
      scale: -1,
      patch: undefined,
      effects: [],
    },
    {
      name: "active for less than the stable window keeps one pod",
      desired: 0,
      st: { activeSinceMs: NOW - 20_000, currentReplicas: 3 },
      scale: 1,
      patch: 1,
      effects: [{ kind: "recheckAfter", delayMs: 40_000 }],
    },
    {
      name: "inactive past the grace period scales to zero",
      desired: 0,
      st: { active: "False" as const, activeSinceMs: NOW - 30_000 },
      probe: true,
      scale: 0,
      patch: 0,
      effects: [],
    },
    {
      name: "activating past the deadline gives up",
      desired: 0,
      st: { active: "Unknown" as const, activeSinceMs: NOW - 631_000 },
      scale: 0,
      patch: 0,
      effects: [],
    },
  ])("$name", ({ desired, st, max, probe, scale, patch, effects }) => {
    const s = { ...settings, maxScale: max ?? 0 };
    const step = applyScale({ now: NOW, desired, state: state(st), settings: s, activatorProbe: probe });
    expect(step).toEqual({ kind: "decided", scale, patchReplicas: patch, effects });
  });

  it("asks for the activator probe before the last pod goes, and probes in the background on failure", () => {
    const input = {
      now: NOW,
      desired: 0,
      state: state({ active: "False", activeSinceMs: NOW - 40_000 }),
      settings,
    };
    expect(applyScale(input)).toEqual({ kind: "probeActivator" });
    expect(applyScale({ ...input, activatorProbe: false })).toEqual({
      kind: "decided",
      scale: 0,
      patchReplicas: undefined,
      effects: [{ kind: "startActivatorProbing", periodMs: 1000, timeoutMs: 45_000 }],
    });
  });

  it("keeps one pod when scale to zero is disabled", () => {
    const s = { ...settings, enableScaleToZero: false };
    const step = applyScale({ now: NOW, desired: 0, state: state({ currentReplicas: 2 }), settings: s });
    expect(step).toMatchObject({ scale: 1, patchReplicas: 1 });
  });
});

describe("conditions and modes", () => {
  it.each([
    { name: "want 0", cur: "True" as const, want: 0, ready: 1, min: 1, status: "False", reason: "NoTraffic" },
    {
      name: "timed out",
      cur: "Unknown" as const,
      want: 0,
      ready: 0,
      min: 1,
      status: "False",
      reason: "TimedOut",
    },
    {
      name: "starting",
      cur: "False" as const,
      want: 2,
      ready: 0,
      min: 1,
      status: "Unknown",
      reason: "Queued",
    },
    { name: "ready", cur: "Unknown" as const, want: 2, ready: 1, min: 1, status: "True", reason: "Active" },
  ])("active condition: $name", ({ cur, want, ready, min, status, reason }) => {
    expect(nextActiveCondition(cur, want, ready, min)).toEqual({ status, reason });
  });

  it("needs the initial scale ready before the first initialization", () => {
    const s = { minScale: 0, initialScale: 3 };
    expect(activeThreshold(s, { reachable: true, scaleTargetInitialized: false })).toBe(3);
    expect(activeThreshold(s, { reachable: true, scaleTargetInitialized: true })).toBe(1);
  });

  it.each([
    [0, 5, "True", "Proxy"],
    [2, -1, "True", "Proxy"],
    [2, 0, "True", "Serve"],
    [-1, 0, "False", "Proxy"],
    [-1, 0, "True", "Serve"],
  ] as const)("want %i, EBC %i, active %s → %s", (want, ebc, active, mode) => {
    expect(sksModeFor(want, ebc, active)).toBe(mode);
  });

  it.each([
    { name: "TBC 0", ready: 50, tbc: 0, want: 2 },
    { name: "TBC -1 counts pods only", ready: 50, tbc: -1, want: 5 },
    { name: "TBC adds to capacity", ready: 10, tbc: 211, want: 4 },
    { name: "never fewer than 2", ready: 0, tbc: 10, want: 2 },
    { name: "15 pods of 100 + TBC 200 over capacity 100", ready: 15, tbc: 200, want: 17, total: 100 },
  ])("activatorCount: $name", ({ ready, tbc, want, total }) => {
    const spec = { targetBurstCapacity: tbc, totalValue: total ?? 10, activatorCapacity: 100 };
    expect(activatorCount(ready, spec)).toBe(want);
  });
});
