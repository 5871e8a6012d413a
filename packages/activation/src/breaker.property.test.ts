import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Breaker } from "./breaker.js";
import { QueueFullError } from "./errors.js";
import { Callers, settle } from "./test-support/callers.js";

type Op =
  | { kind: "acquire"; cancellable: boolean }
  | { kind: "release"; pick: number }
  | { kind: "cancel"; pick: number }
  | { kind: "capacity"; value: number };

const MAX = 4;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("acquire" as const), cancellable: fc.boolean() }),
  fc.record({ kind: fc.constant("release" as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant("capacity" as const), value: fc.integer({ min: 0, max: MAX }) }),
);

describe("Breaker under random interleavings", () => {
  it("never runs more than its capacity allows, never loses or reorders a waiter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 80 }),
        fc.integer({ min: 0, max: MAX }),
        async (ops, initial) => {
          const b = new Breaker({ queueDepth: 6, maxConcurrency: MAX, initialCapacity: initial });
          const callers = new Callers<void>();
          // Work admitted before a capacity cut may keep running; nothing new may start above the limit.
          let overflow = 0;
          for (const op of ops) {
            if (op.kind === "acquire") {
              callers.start(
                op.cancellable,
                (signal) => b.acquire(signal),
                (err) => {
                  if (!(err instanceof Error)) throw err;
                  if (err instanceof QueueFullError) expect(b.inFlight).toBeGreaterThanOrEqual(6 + MAX);
                },
              );
            } else if (op.kind === "release") {
              if (callers.finish(op.pick)) {
                b.release();
                if (overflow > 0) overflow--;
              }
            } else if (op.kind === "cancel") {
              callers.cancel(op.pick);
            } else {
              b.updateConcurrency(op.value);
              overflow = Math.max(0, b.executing - op.value);
            }
            await settle(5);
            const running = callers.running.length;
            const waiting = callers.waitingCount;
            expect(running).toBe(b.executing);
            expect(running).toBeLessThanOrEqual(b.capacity + overflow);
            // Nobody waits while a token is free: a waiter is never lost.
            expect(waiting).toBe(b.waiting);
            if (waiting > 0) expect(b.executing).toBeGreaterThanOrEqual(b.capacity);
            expect(b.inFlight).toBe(running + waiting);
          }
          // Admissions happen in arrival order among the callers that were admitted.
          expect(callers.admitted).toEqual([...callers.admitted].sort((x, y) => x - y));
        },
      ),
      { numRuns: 300 },
    );
  });
});
