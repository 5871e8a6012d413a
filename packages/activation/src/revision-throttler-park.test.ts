import { systemClock } from "@thaw/clock";
import { describe, expect, it } from "vitest";
import { type Answer, waitFor } from "./answer.js";
import { deadlineSignal } from "./deadline-signal.js";
import { DeadlineExceededError, QueueFullError } from "./errors.js";
import type { PodTracker } from "./pod-tracker.js";
import { RevisionThrottler } from "./revision-throttler.js";

/** A caller of `park` that records what it was told, in order, into `log`. */
function caller(name: string, log: string[], onGrant?: (t: PodTracker) => void): Answer<PodTracker> {
  return {
    granted(t) {
      log.push(`${name}@${t.dest}`);
      onGrant?.(t);
    },
    refused(err) {
      log.push(`${name}:${(err as { code?: string }).code}`);
    },
  };
}

describe("RevisionThrottler.park (the callback waiter)", () => {
  it("serves parked callers in arrival order, each synchronously inside the release that frees its slot", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const log: string[] = [];
    const held: PodTracker[] = [];
    const tickets = ["a", "b", "c", "d"].map((n) => rt.park(caller(n, log, (t) => held.push(t))));
    expect(tickets.every((t) => t !== undefined)).toBe(true);
    expect(rt.waiting).toBe(4);
    rt.updateDestinations(["pod-1"]);
    expect(log).toEqual(["a@pod-1"]);
    for (let i = 0; i < 3; i++) rt.release(held[i] as PodTracker);
    expect(log).toEqual(["a@pod-1", "b@pod-1", "c@pod-1", "d@pod-1"]);
    rt.release(held[3] as PodTracker);
    expect(rt.inFlight).toBe(0);
    expect(rt.waiting).toBe(0);
  });

  it("answers at once and returns no ticket when a slot is free", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 2 });
    rt.updateDestinations(["pod-1"]);
    const log: string[] = [];
    expect(rt.park(caller("a", log))).toBeUndefined();
    expect(log).toEqual(["a@pod-1"]);
    expect(rt.inFlight).toBe(1);
  });

  it("cancel gives the place up: the cancelled caller is never served and holds nothing", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const log: string[] = [];
    const held: PodTracker[] = [];
    const [a, b, c] = ["a", "b", "c"].map((n) => rt.park(caller(n, log, (t) => held.push(t))));
    expect(b?.cancel()).toBe(true);
    expect(b?.cancel()).toBe(false);
    expect(rt.waiting).toBe(2);
    expect(rt.inFlight).toBe(2);
    rt.updateDestinations(["pod-1"]);
    rt.release(held[0] as PodTracker);
    expect(log).toEqual(["a@pod-1", "c@pod-1"]);
    // Already served: cancelling now changes nothing (the caller releases its pod instead).
    expect(a?.cancel()).toBe(false);
    expect(c?.cancel()).toBe(false);
    rt.release(held[1] as PodTracker);
    expect(rt.inFlight).toBe(0);
  });

  it("bounds its queue: overflow is refused synchronously with QueueFullError, and a cancel makes room", () => {
    for (const cc of [1, 0]) {
      const rt = new RevisionThrottler({ containerConcurrency: cc, queueLimit: 2 });
      const log: string[] = [];
      const first = rt.park(caller("a", log));
      rt.park(caller("b", log));
      expect(rt.park(caller("c", log))).toBeUndefined();
      expect(log).toEqual(["c:ERR_QUEUE_FULL"]);
      first?.cancel();
      expect(rt.park(caller("d", log))).toBeDefined();
      expect(rt.waiting).toBe(2);
      rt.updateDestinations(["pod-1"]);
      expect(log).toEqual(["c:ERR_QUEUE_FULL", "b@pod-1", ...(cc === 0 ? ["d@pod-1"] : [])]);
    }
  });

  it("a caller's deadline on a real timer cancels its place; the next caller gets the pod", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const log: string[] = [];
    const late = rt.park(caller("late", log));
    const next = rt.park(caller("next", log));
    expect(next).toBeDefined();
    await new Promise<void>((resolve) =>
      systemClock.setTimeout(() => {
        if (late?.cancel()) log.push("late:deadline");
        resolve();
      }, 20),
    );
    expect(rt.waiting).toBe(1);
    rt.updateDestinations(["pod-1"]);
    expect(log).toEqual(["late:deadline", "next@pod-1"]);
  });

  it("the promise form rejects at its deadline (real timers) and leaves nothing behind", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const d = deadlineSignal(systemClock, 20);
    const started = Date.now();
    await expect(rt.acquire(d.signal)).rejects.toBeInstanceOf(DeadlineExceededError);
    d.dispose();
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(rt.waiting).toBe(0);
    expect(rt.inFlight).toBe(0);
    await expect(waitFor(AbortSignal.abort(), (who) => rt.park(who))).rejects.toThrow();
    expect(rt.inFlight).toBe(0);
  });

  it("an admitted caller still looking for a pod with room can cancel, and its admission goes back", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    // One backend counted but no tracker yet: the gate admits one caller, who finds no pod and waits on.
    rt.updateDestinations([], 1);
    const log: string[] = [];
    const a = rt.park(caller("a", log));
    const b = rt.park(caller("b", log));
    expect(rt.inFlight).toBe(2);
    expect(rt.waiting).toBe(2);
    expect(a?.cancel()).toBe(true);
    // a's admission went to b, who is now the one looking for a pod.
    expect(rt.inFlight).toBe(1);
    rt.updateDestinations(["pod-1"]);
    expect(log).toEqual(["b@pod-1"]);
    expect(b?.cancel()).toBe(false);
  });

  it("a caller that gives its pod back inside `granted` passes it on without breaking the counts", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const log: string[] = [];
    rt.park(caller("a", log, (t) => rt.release(t)));
    rt.park(caller("b", log, (t) => rt.release(t)));
    rt.updateDestinations(["pod-1"]);
    expect(log).toEqual(["a@pod-1", "b@pod-1"]);
    expect(rt.inFlight).toBe(0);
    expect(rt.tryAcquire()?.dest).toBe("pod-1");
  });

  it("overflow of the promise form is still QueueFullError", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1, queueLimit: 1 });
    const ac = new AbortController();
    const first = rt.acquire(ac.signal);
    await expect(rt.acquire()).rejects.toBeInstanceOf(QueueFullError);
    ac.abort();
    await expect(first).rejects.toThrow();
    expect(rt.inFlight).toBe(0);
  });
});
