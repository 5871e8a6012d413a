import { Breaker } from "@thaw/activation";
import { describe, expect, it } from "vitest";
import { WaitSignal } from "./wait-signal.js";

describe("WaitSignal with the real Breaker", () => {
  it("takes a waiter out of the queue when aborted", async () => {
    const breaker = new Breaker({ queueDepth: 10, maxConcurrency: 1, initialCapacity: 1 });
    expect(breaker.tryAcquire()).toBe(true);
    const signal = new WaitSignal();
    const waiting = breaker.acquire(signal.asSignal());
    expect(breaker.inFlight).toBe(2);
    signal.abort();
    await expect(waiting).rejects.toMatchObject({ code: "ERR_CANCELLED" });
    expect(breaker.inFlight).toBe(1);
    expect(breaker.waiting).toBe(0);
  });

  it("reports a timeout reason as a deadline", async () => {
    const breaker = new Breaker({ queueDepth: 10, maxConcurrency: 1, initialCapacity: 1 });
    breaker.tryAcquire();
    const signal = new WaitSignal();
    const waiting = breaker.acquire(signal.asSignal());
    signal.abort({ name: "TimeoutError" });
    await expect(waiting).rejects.toMatchObject({ code: "ERR_DEADLINE" });
  });

  it("lets a served waiter keep its slot (the listener is removed)", async () => {
    const breaker = new Breaker({ queueDepth: 10, maxConcurrency: 1, initialCapacity: 1 });
    breaker.tryAcquire();
    const signal = new WaitSignal();
    const waiting = breaker.acquire(signal.asSignal());
    breaker.release();
    await waiting;
    signal.abort(); // too late: nothing happens
    expect(breaker.inFlight).toBe(1);
  });
});
