import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PodTracker } from "./pod-tracker.js";
import { RevisionThrottler } from "./revision-throttler.js";
import { Callers, settle } from "./test-support/callers.js";

type Op =
  | { kind: "acquire"; cancellable: boolean }
  | { kind: "release"; pick: number }
  | { kind: "cancel"; pick: number }
  | { kind: "dests"; mask: number };

const PODS = ["p0", "p1", "p2"];
const CC = 2;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("acquire" as const), cancellable: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dests" as const), mask: fc.nat(7) }) },
);

describe("RevisionThrottler under random interleavings", () => {
  it("keeps pods within CC, never strands a waiter while a pod has room, admits in arrival order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => {
        const rt = new RevisionThrottler({ containerConcurrency: CC, queueLimit: 1000 });
        const callers = new Callers<PodTracker>();
        for (const op of ops) {
          if (op.kind === "acquire") {
            callers.start(op.cancellable, (signal) => rt.acquire(signal));
          } else if (op.kind === "release") {
            const c = callers.finish(op.pick);
            if (c?.lease) rt.release(c.lease);
          } else if (op.kind === "cancel") {
            callers.cancel(op.pick);
          } else {
            rt.updateDestinations(PODS.filter((_, i) => op.mask & (1 << i)));
          }
          await settle(10);
          const running = callers.running;
          const waiting = callers.waitingCount;
          for (const t of rt.podTrackers) expect(t.inFlight).toBeLessThanOrEqual(CC);
          expect(waiting).toBe(rt.waiting);
          expect(rt.inFlight).toBe(running.length + waiting);
          if (waiting > 0) {
            const podHasRoom = rt.assignedTrackers.some((t) => t.inFlight < CC);
            expect(podHasRoom && running.length < rt.capacity).toBe(false);
          }
        }
        expect(callers.admitted).toEqual([...callers.admitted].sort((x, y) => x - y));
      }),
      { numRuns: 300 },
    );
  });
});
