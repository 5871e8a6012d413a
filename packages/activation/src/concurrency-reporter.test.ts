import { ManualClock } from "@thaw/clock/testing";
import type { WireStatMessage } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { ConcurrencyReporter } from "./concurrency-reporter.js";

describe("ConcurrencyReporter", () => {
  it("pokes at once, reports every second, forgets idle revisions and stops", async () => {
    const clock = new ManualClock(0);
    const batches: WireStatMessage[][] = [];
    const r = new ConcurrencyReporter({ podName: "act-0", clock, send: (m) => batches.push(m) });
    r.start();
    const rev = { namespace: "ns", name: "hello" };
    r.requestIn(rev, clock.now());
    expect(batches).toEqual([
      [
        {
          namespace: "ns",
          name: "hello",
          stat: expect.objectContaining({ averageConcurrentRequests: 1, requestCount: 1, podName: "act-0" }),
        },
      ],
    ]);
    await clock.advance(500);
    r.requestOut(rev, clock.now());
    await clock.advance(500);
    // 0.5 average minus the poke's 1, floored at 0; count 1 minus 1.
    expect(batches[1]?.[0]?.stat).toMatchObject({ averageConcurrentRequests: 0, requestCount: 0 });
    await clock.advance(1000);
    expect(r.size).toBe(0);
    await clock.advance(1000);
    expect(batches.length).toBe(3);
    r.stop();
    expect(clock.pending).toBe(0);
  });

  it("pokes for a request held elsewhere without a report of 0 after it, and not for a revision it reports", async () => {
    const clock = new ManualClock(0);
    const batches: WireStatMessage[][] = [];
    const r = new ConcurrencyReporter({ podName: "act-0", clock, send: (m) => batches.push(m) });
    r.start();
    const rev = { namespace: "ns", name: "hello" };
    r.poke(rev);
    expect(batches).toEqual([
      [{ namespace: "ns", name: "hello", stat: expect.objectContaining({ averageConcurrentRequests: 1 }) }],
    ]);
    // No entry: the next tick has nothing to report (a 0 here would dilute what the hook reports held).
    await clock.advance(1000);
    expect(batches).toHaveLength(1);
    expect(r.size).toBe(0);
    // A revision with requests in flight here was poked on their arrival already.
    r.requestIn(rev, clock.now());
    r.poke(rev);
    expect(batches).toHaveLength(2);
    r.stop();
  });
});
