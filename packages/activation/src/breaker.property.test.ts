import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Breaker } from "./breaker.js";
import { QueueFullError } from "./errors.js";

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

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

interface Caller {
  id: number;
  state: "waiting" | "running" | "done" | "rejected";
  ac: AbortController | undefined;
}

describe("Breaker under random interleavings", () => {
  it("never runs more than its capacity allows, never loses or reorders a waiter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 80 }),
        fc.integer({ min: 0, max: MAX }),
        async (ops, initial) => {
          const b = new Breaker({ queueDepth: 6, maxConcurrency: MAX, initialCapacity: initial });
          const callers: Caller[] = [];
          const admittedOrder: number[] = [];
          // Work admitted before a capacity cut may keep running; nothing new may start above the limit.
          let overflow = 0;
          for (const op of ops) {
            if (op.kind === "acquire") {
              const c: Caller = {
                id: callers.length,
                state: "waiting",
                ac: op.cancellable ? new AbortController() : undefined,
              };
              callers.push(c);
              b.acquire(c.ac?.signal).then(
                () => {
                  c.state = "running";
                  admittedOrder.push(c.id);
                },
                (err: unknown) => {
                  if (!(err instanceof Error)) throw err;
                  if (err instanceof QueueFullError) expect(b.inFlight).toBeGreaterThanOrEqual(6 + MAX);
                  c.state = "rejected";
                },
              );
            } else if (op.kind === "release") {
              const running = callers.filter((c) => c.state === "running");
              const c = running[op.pick % Math.max(1, running.length)];
              if (c) {
                c.state = "done";
                b.release();
                if (overflow > 0) overflow--;
              }
            } else if (op.kind === "cancel") {
              const waiting = callers.filter((c) => c.state === "waiting" && c.ac);
              waiting[op.pick % Math.max(1, waiting.length)]?.ac?.abort();
            } else {
              b.updateConcurrency(op.value);
              overflow = Math.max(0, b.executing - op.value);
            }
            await settle();
            const running = callers.filter((c) => c.state === "running").length;
            const waiting = callers.filter((c) => c.state === "waiting").length;
            expect(running).toBe(b.executing);
            expect(running).toBeLessThanOrEqual(b.capacity + overflow);
            // Nobody waits while a token is free: a waiter is never lost.
            expect(waiting).toBe(b.waiting);
            if (waiting > 0) expect(b.executing).toBeGreaterThanOrEqual(b.capacity);
            expect(b.inFlight).toBe(running + waiting);
          }
          // Admissions happen in arrival order among the callers that were admitted.
          expect(admittedOrder).toEqual([...admittedOrder].sort((x, y) => x - y));
        },
      ),
      { numRuns: 300 },
    );
  });
});
