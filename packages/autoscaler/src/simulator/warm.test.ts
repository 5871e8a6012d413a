import { describe, expect, it } from "vitest";
import { DEFAULT_AUTOSCALER_CONFIG } from "../config.js";
import { parseSchedules } from "../schedule/schedule.js";
import { simulate } from "./simulate.js";
import type { TraceRequest } from "./trace.js";

/** A morning rush: 1 request a second from 08:00 for 5 minutes, each 200 ms, on a day starting at 07:00 UTC. */
const START = Date.UTC(2026, 11, 7, 7, 0);
const HOUR = 3_600_000;
const rush: TraceRequest[] = Array.from({ length: 300 }, (_, i) => ({
  arrivalMs: HOUR + i * 1000,
  durationMs: 200,
}));

const base = {
  config: { ...DEFAULT_AUTOSCALER_CONFIG, stableWindowMs: 60_000, scaleToZeroGracePeriodMs: 30_000 },
  annotations: {},
  containerConcurrency: 10,
  startupDelayMs: 5000,
  startEpochMs: START,
};

function windows(raw: unknown[]) {
  const r = parseSchedules(raw, "schedules");
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

describe("simulate: warm before need", () => {
  const none = simulate(rush, base);
  const sched = simulate(rush, {
    ...base,
    schedules: windows([{ start: "55 7 * * *", duration: "15m", minScale: 1 }]),
  });
  // A login page hit 30 s before the rush sends a hint with a 10-minute TTL.
  const hint = simulate(rush, { ...base, hints: [HOUR - 30_000], hintTtlMs: 600_000 });

  it("without warming, the rush's first requests hit a cold start and wait about a start-up time", () => {
    expect(none.coldStarts).toBe(1);
    expect(none.queued.waited).toBeGreaterThan(0);
    expect(none.queued.maxMs).toBeGreaterThan(4000);
  });

  it("a window opening before the rush: no cold request, no wait, more pod-seconds", () => {
    expect(sched.coldRequests).toBe(0);
    expect(sched.queued.waited).toBe(0);
    expect(sched.podSeconds).toBeGreaterThan(none.podSeconds);
  });

  it("a wake hint before the rush does the same for the TTL, without counting as load", () => {
    expect(hint.coldRequests).toBe(0);
    expect(hint.queued.waited).toBe(0);
    expect(hint.maxReplicas).toBe(1);
  });

  it("THAW-FIGURES", () => {
    const row = (name: string, r: typeof none) =>
      `${name}: scale-ups from zero ${r.coldStarts}, requests that hit a cold start ${r.coldRequests}, requests waited ${r.queued.waited}, wait p50 ${r.queued.p50Ms.toFixed(0)} ms p99 ${r.queued.p99Ms.toFixed(0)} ms, pod-seconds ${r.podSeconds.toFixed(0)}`;
    console.log(
      `THAW-FIGURES simulate (300 req from 08:00 UTC, 5 s start-up) | ${row("no schedule", none)} | ${row("schedule 07:55+15m", sched)} | ${row("hint at 07:59:30 ttl 10m", hint)}`,
    );
  });
});
