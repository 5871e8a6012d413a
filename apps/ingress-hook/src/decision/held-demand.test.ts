import { ManualClock } from "@thaw/clock/testing";
import type { WireStatMessage } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { HeldDemand, SETTLE_MS } from "./held-demand.js";

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
    // Handed on at once after the settle report: nothing held in the period.
    expect(sent[1]?.[0]?.stat).toMatchObject({ averageConcurrentRequests: 0, timestamp: 0 });
    await clock.advance(5000);
    expect(sent).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });
});
