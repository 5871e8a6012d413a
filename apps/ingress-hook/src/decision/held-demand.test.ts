import { ManualClock } from "@thaw/clock/testing";
import type { WireStatMessage } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { HeldDemand, SETTLE_MAX_MS, SETTLE_MS } from "./held-demand.js";

describe("HeldDemand", () => {
  it("reports a held burst in the poke's second, less the poke's 1; a handed-on request stops counting", async () => {
    const clock = new ManualClock(10_000);
    const sent: WireStatMessage[][] = [];
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, clock);
    const rev = { namespace: "ns", name: "hello" };
    const offs = Array.from({ length: 10 }, () => held.hold(rev));
    await clock.advance(SETTLE_MS);
    // 10 held for the whole settle period, minus the 1 the activation's poke reported; stamped 10 s.
    expect(sent).toEqual([
      [
        {
          namespace: "ns",
          name: "hello",
          stat: expect.objectContaining({ averageConcurrentRequests: 9, timestamp: 10, podName: "hook-0" }),
        },
      ],
    ]);
    for (const off of offs) {
      off();
      off(); // a second hand-off of the same request counts nothing
    }
    await clock.advance(1000 - SETTLE_MS);
    // Handed on at once after the settle report: nothing held in the period, stamped with its second.
    expect(sent[1]?.[0]?.stat).toMatchObject({ averageConcurrentRequests: 0, timestamp: 11 });
    await clock.advance(5000);
    expect(sent).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });

  it("reports the burst's level once it has arrived, however its requests were spread", async () => {
    const clock = new ManualClock(10_000);
    const sent: WireStatMessage[][] = [];
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, clock);
    const rev = { namespace: "ns", name: "hello" };
    for (let i = 0; i < 5; i++) held.hold(rev);
    await clock.advance(150);
    for (let i = 0; i < 5; i++) held.hold(rev);
    await clock.advance(SETTLE_MS - 1);
    expect(sent).toEqual([]); // 200 ms after the last one, not after the first
    await clock.advance(1);
    // 10 held now, less the poke's 1. The average since the first (with the poke's 1, 6.25 at 200 ms) would
    // ask for ceil(6.25 / 1.4) = 5 pods at CC 2, not Knative's 8.
    expect(sent[0]?.[0]?.stat).toMatchObject({
      averageConcurrentRequests: 9,
      requestCount: 9,
      timestamp: 10,
    });
    await clock.advance(1000 - SETTLE_MS - 150);
    // The next second is an average again: all 10 held throughout it, nothing owed any more.
    expect(sent[1]?.[0]?.stat).toMatchObject({
      averageConcurrentRequests: 10,
      requestCount: 0,
      timestamp: 11,
    });
    held.stop();
  });

  it("settles a burst that keeps arriving at most a second after its first request, stamped with its second", async () => {
    const clock = new ManualClock(10_900);
    const sent: WireStatMessage[][] = [];
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, clock);
    const rev = { namespace: "ns", name: "hello" };
    // One request every 150 ms, never a 200 ms pause: 7 by the deadline at 11.9 s.
    for (let i = 0; i < 7; i++) {
      if (i > 0) await clock.advance(150);
      held.hold(rev);
    }
    await clock.advance(SETTLE_MAX_MS - 6 * 150 - 1);
    expect(sent).toEqual([]);
    await clock.advance(1);
    expect(sent[0]?.[0]?.stat).toMatchObject({
      averageConcurrentRequests: 6,
      requestCount: 6,
      timestamp: 10,
    });
    held.stop();
  });

  it("sends one settle report when the timers it moved on cannot be cancelled (a Worker's other requests)", async () => {
    const clock = new ManualClock(10_000);
    const sent: WireStatMessage[][] = [];
    // workerd: a timer set while serving one request is not cancelled from another request's context.
    const uncancellable = {
      now: () => clock.now(),
      setTimeout: (fn: () => void, ms: number) => clock.setTimeout(fn, ms),
      clearTimeout: () => {},
      sleep: (ms: number) => clock.sleep(ms),
    };
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, uncancellable);
    const rev = { namespace: "ns", name: "hello" };
    for (let i = 0; i < 10; i++) {
      held.hold(rev);
      await clock.advance(50);
    }
    await clock.advance(SETTLE_MS);
    expect(sent.flat().map((m) => m.stat?.averageConcurrentRequests)).toEqual([9]);
    held.stop();
  });

  it("puts a burst in one bucket once when the timer, running for another revision, ticks in its settle second", async () => {
    const clock = new ManualClock(10_800);
    const sent: WireStatMessage[][] = [];
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, clock);
    const other = held.hold({ namespace: "ns", name: "other" }); // ticks at 11.8 s, 12.8 s, ...
    await clock.advance(300);
    const rev = { namespace: "ns", name: "hello" };
    for (let i = 0; i < 10; i++) held.hold(rev); // at 11.1 s, settled at 11.3 s
    await clock.advance(SETTLE_MS);
    const hello = () =>
      sent
        .flat()
        .filter((m) => m.name === "hello")
        .map((m) => m.stat);
    expect(hello()).toEqual([expect.objectContaining({ averageConcurrentRequests: 9, timestamp: 11 })]);
    // The tick at 11.8 s is in the settle report's second: a report now would be a second 10 in bucket 11.
    await clock.advance(500);
    expect(hello()).toHaveLength(1);
    // 12.8 s: the next second's report, averaged since the settle report.
    await clock.advance(1000);
    expect(hello()).toEqual([
      expect.objectContaining({ averageConcurrentRequests: 9, timestamp: 11 }),
      expect.objectContaining({ averageConcurrentRequests: 10, timestamp: 12 }),
    ]);
    other();
    held.stop();
  });

  it("leaves a revision out of a tick that comes before its settle report", async () => {
    const clock = new ManualClock(10_900);
    const sent: WireStatMessage[][] = [];
    const held = new HeldDemand({ podName: "hook-0", send: (m) => sent.push(m) }, clock);
    const other = held.hold({ namespace: "ns", name: "other" }); // ticks at 11.9 s, 12.9 s, ...
    await clock.advance(950);
    const rev = { namespace: "ns", name: "hello" };
    for (let i = 0; i < 10; i++) held.hold(rev); // at 11.85 s: the tick at 11.9 s comes before the settle
    await clock.advance(SETTLE_MS);
    const hello = sent
      .flat()
      .filter((m) => m.name === "hello")
      .map((m) => m.stat);
    // One report (the settle's, stamped with the burst's second), the poke's 1 left out once.
    expect(hello).toEqual([
      expect.objectContaining({ averageConcurrentRequests: 9, requestCount: 9, timestamp: 11 }),
    ]);
    other();
    held.stop();
  });
});
