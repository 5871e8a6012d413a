import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PodTracker } from "./pod-tracker.js";
import { RevisionThrottler } from "./revision-throttler.js";

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

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

interface Caller {
  id: number;
  state: "waiting" | "running" | "done" | "rejected";
  ac: AbortController | undefined;
  tracker?: PodTracker;
}

describe("RevisionThrottler under random interleavings", () => {
  it("keeps pods within CC, never strands a waiter while a pod has room, admits in arrival order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => {
        const rt = new RevisionThrottler({ containerConcurrency: CC, queueLimit: 1000 });
        const callers: Caller[] = [];
        const admitted: number[] = [];
        for (const op of ops) {
          if (op.kind === "acquire") {
            const c: Caller = {
              id: callers.length,
              state: "waiting",
              ac: op.cancellable ? new AbortController() : undefined,
            };
            callers.push(c);
            rt.acquire(c.ac?.signal).then(
              (t) => {
                c.state = "running";
                c.tracker = t;
                admitted.push(c.id);
              },
              () => {
                c.state = "rejected";
              },
            );
          } else if (op.kind === "release") {
            const running = callers.filter((c) => c.state === "running");
            const c = running[op.pick % Math.max(1, running.length)];
            if (c?.tracker) {
              c.state = "done";
              rt.release(c.tracker);
            }
          } else if (op.kind === "cancel") {
            const waiting = callers.filter((c) => c.state === "waiting" && c.ac);
            waiting[op.pick % Math.max(1, waiting.length)]?.ac?.abort();
          } else {
            rt.updateDestinations(PODS.filter((_, i) => op.mask & (1 << i)));
          }
          await settle();
          const running = callers.filter((c) => c.state === "running");
          const waiting = callers.filter((c) => c.state === "waiting").length;
          for (const t of rt.podTrackers) expect(t.inFlight).toBeLessThanOrEqual(CC);
          expect(waiting).toBe(rt.waiting);
          expect(rt.inFlight).toBe(running.length + waiting);
          if (waiting > 0) {
            const podHasRoom = rt.assignedTrackers.some((t) => t.inFlight < CC);
            expect(podHasRoom && running.length < rt.capacity).toBe(false);
          }
        }
        expect(admitted).toEqual([...admitted].sort((x, y) => x - y));
      }),
      { numRuns: 300 },
    );
  });
});
