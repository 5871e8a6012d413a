import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { RequestTimer, type TimerSpec } from "./request-timer.js";

describe("RequestTimer", () => {
  it.each<{ name: string; spec: TimerSpec; steps: ("start" | "write" | number)[]; want: string | undefined }>(
    [
      {
        name: "total fires",
        spec: { totalMs: 100, responseStartMs: 0, idleMs: 0 },
        steps: [100],
        want: "timeout",
      },
      {
        name: "nothing before total",
        spec: { totalMs: 100, responseStartMs: 0, idleMs: 0 },
        steps: [99],
        want: undefined,
      },
      {
        name: "response-start fires while waiting",
        spec: { totalMs: 1000, responseStartMs: 50, idleMs: 0 },
        steps: [50],
        want: "timeout",
      },
      {
        name: "response-start cleared once started",
        spec: { totalMs: 1000, responseStartMs: 50, idleMs: 0 },
        steps: [40, "start", 100],
        want: undefined,
      },
      {
        name: "idle counts from arrival",
        spec: { totalMs: 1000, responseStartMs: 0, idleMs: 30 },
        steps: [30],
        want: "timeout",
      },
      {
        name: "writes keep idle alive",
        spec: { totalMs: 1000, responseStartMs: 0, idleMs: 30 },
        steps: [20, "start", 20, "write", 20, "write", 20],
        want: undefined,
      },
      {
        name: "caller deadline is its own kind",
        spec: { totalMs: 1000, responseStartMs: 0, idleMs: 0, callerMs: 10 },
        steps: [10],
        want: "deadline",
      },
      {
        name: "total still applies while streaming",
        spec: { totalMs: 100, responseStartMs: 0, idleMs: 30 },
        steps: [20, "start", 20, "write", 20, "write", 20, "write", 20, "write", 20],
        want: "timeout",
      },
    ],
  )("$name", async ({ spec, steps, want }) => {
    const clock = new ManualClock();
    const t = new RequestTimer(clock, spec);
    for (const s of steps) {
      if (s === "start") t.started();
      else if (s === "write") t.wrote();
      else await clock.advance(s);
    }
    expect(t.expiry).toBe(want);
    expect(t.signal.aborted).toBe(want !== undefined);
  });

  it("the client leaving cancels", async () => {
    const ac = new AbortController();
    const clock = new ManualClock();
    const t = new RequestTimer(clock, {
      totalMs: 100,
      responseStartMs: 0,
      idleMs: 0,
      clientSignal: ac.signal,
    });
    ac.abort();
    expect(t.expiry).toBe("cancelled");
    expect(clock.pending).toBe(0);
  });

  it("done clears every timer", () => {
    const clock = new ManualClock();
    const t = new RequestTimer(clock, { totalMs: 100, responseStartMs: 10, idleMs: 10, callerMs: 5 });
    t.done();
    expect(clock.pending).toBe(0);
  });
});
