import { describe, expect, it } from "vitest";
import { Breaker, type BreakerParams } from "./breaker.js";
import { CancelledError, DeadlineExceededError, QueueFullError } from "./errors.js";
import { InfiniteBreaker } from "./infinite-breaker.js";
import { UnlimitedGate } from "./unlimited-gate.js";

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("Breaker constructor", () => {
  const rows: { name: string; p: BreakerParams; throws: boolean }[] = [
    { name: "queueDepth 0", p: { queueDepth: 0, maxConcurrency: 1, initialCapacity: 1 }, throws: true },
    {
      name: "negative maxConcurrency",
      p: { queueDepth: 1, maxConcurrency: -1, initialCapacity: 0 },
      throws: true,
    },
    { name: "capacity above max", p: { queueDepth: 1, maxConcurrency: 1, initialCapacity: 2 }, throws: true },
    {
      name: "negative maxWaiting",
      p: { queueDepth: 1, maxConcurrency: 1, initialCapacity: 1, maxWaiting: -1 },
      throws: true,
    },
    { name: "valid", p: { queueDepth: 1, maxConcurrency: 0, initialCapacity: 0 }, throws: false },
  ];
  it.each(rows)("$name", ({ p, throws }) => {
    if (throws) expect(() => new Breaker(p)).toThrow(RangeError);
    else expect(() => new Breaker(p)).not.toThrow();
  });
});

describe("Breaker admission", () => {
  it("serves waiters strictly in arrival order", async () => {
    const b = new Breaker({ queueDepth: 10, maxConcurrency: 1, initialCapacity: 1 });
    expect(b.tryAcquire()).toBe(true);
    const order: number[] = [];
    const waits = [1, 2, 3, 4].map((n) => b.acquire().then(() => order.push(n)));
    // A newcomer must not jump the queue even when a release frees a token.
    b.release();
    expect(b.tryAcquire()).toBe(false);
    for (let i = 0; i < 4; i++) {
      await settle();
      b.release();
    }
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(b.inFlight).toBe(0);
  });

  it("rejects with QueueFullError beyond queueDepth + maxConcurrency", async () => {
    const b = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    await b.acquire();
    const waiting = b.acquire();
    await expect(b.acquire()).rejects.toBeInstanceOf(QueueFullError);
    await expect(b.acquire()).rejects.toThrow("pending request queue full");
    b.release();
    await waiting;
    expect(b.inFlight).toBe(1);
  });

  it("bounds waiters with maxWaiting even when maxConcurrency is huge", async () => {
    const b = new Breaker({
      queueDepth: 100,
      maxConcurrency: 2 ** 31 - 1,
      initialCapacity: 0,
      maxWaiting: 2,
    });
    const a = b.acquire();
    const c = b.acquire();
    await expect(b.acquire()).rejects.toBeInstanceOf(QueueFullError);
    b.updateConcurrency(2);
    await Promise.all([a, c]);
    expect(b.executing).toBe(2);
  });

  const cancelRows = [
    { name: "abort() is a cancellation", reason: undefined, error: CancelledError },
    {
      name: "AbortSignal.timeout reason is a deadline",
      reason: new DOMException("t", "TimeoutError"),
      error: DeadlineExceededError,
    },
    {
      name: "our deadline error stays a deadline",
      reason: new DeadlineExceededError(),
      error: DeadlineExceededError,
    },
  ];
  it.each(cancelRows)("cancelled waiter leaves without taking capacity: $name", async ({ reason, error }) => {
    const b = new Breaker({ queueDepth: 5, maxConcurrency: 1, initialCapacity: 0 });
    const ac = new AbortController();
    const gone = b.acquire(ac.signal);
    const stays = b.acquire();
    ac.abort(reason);
    await expect(gone).rejects.toBeInstanceOf(error);
    expect(b.waiting).toBe(1);
    expect(b.inFlight).toBe(1);
    b.updateConcurrency(1);
    await stays;
    expect(b.executing).toBe(1);
  });

  it("refuses an already-aborted caller even with free capacity", async () => {
    const b = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    await expect(b.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(CancelledError);
    expect(b.inFlight).toBe(0);
  });

  it("a capacity cut does not preempt and admits nobody until below the new limit", async () => {
    const b = new Breaker({ queueDepth: 5, maxConcurrency: 3, initialCapacity: 3 });
    for (let i = 0; i < 3; i++) expect(b.tryAcquire()).toBe(true);
    b.updateConcurrency(1);
    let admitted = false;
    const w = b.acquire().then(() => {
      admitted = true;
    });
    b.release();
    b.release();
    await settle();
    expect(admitted).toBe(false);
    b.release();
    await w;
    expect(b.executing).toBe(1);
  });

  it("reserve is non-blocking and its release is idempotent", () => {
    const b = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    const r = b.reserve();
    expect(r).toBeTypeOf("function");
    expect(b.reserve()).toBeUndefined();
    r?.();
    r?.();
    expect(b.inFlight).toBe(0);
  });

  it("maybe releases when fn throws", async () => {
    const b = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    await expect(b.maybe(undefined, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(b.inFlight).toBe(0);
  });
});

describe("InfiniteBreaker", () => {
  it("holds everyone while closed and lets all through, oldest first, when opened", async () => {
    const b = new InfiniteBreaker(10);
    const order: number[] = [];
    const ws = [1, 2, 3].map((n) => b.acquire().then(() => order.push(n)));
    expect(b.capacity).toBe(0);
    b.updateConcurrency(5);
    await Promise.all(ws);
    expect(order).toEqual([1, 2, 3]);
    expect(b.capacity).toBe(1);
    expect(b.tryAcquire()).toBe(true);
    expect(b.inFlight).toBe(4);
  });

  it("bounds its waiting room", async () => {
    const b = new InfiniteBreaker(1);
    const first = b.acquire(AbortSignal.abort());
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    void b.acquire();
    await expect(b.acquire()).rejects.toBeInstanceOf(QueueFullError);
  });
});

describe("UnlimitedGate", () => {
  it("admits everyone and counts them", async () => {
    const g = new UnlimitedGate();
    expect(g.tryAcquire()).toBe(true);
    await g.acquire();
    expect(g.inFlight).toBe(2);
    g.release();
    g.release();
    expect(() => g.release()).toThrow();
  });
});
