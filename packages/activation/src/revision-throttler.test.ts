import { describe, expect, it } from "vitest";
import { MAX_INT32 } from "./capacity.js";
import { CancelledError, QueueFullError, RevisionFailedError } from "./errors.js";
import { RevisionThrottler } from "./revision-throttler.js";
import { Throttler, UnknownRevisionError } from "./throttler.js";

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("RevisionThrottler", () => {
  const capacityRows = [
    { name: "CC 10, two pods", cc: 10, dests: ["a", "b"], capacity: 20 },
    { name: "CC 1, three pods", cc: 1, dests: ["a", "b", "c"], capacity: 3 },
    { name: "CC 0, pods open the infinite breaker", cc: 0, dests: ["a"], capacity: 1 },
    { name: "CC 0, no pods keeps it closed", cc: 0, dests: [], capacity: 0 },
    { name: "CC 5, no pods", cc: 5, dests: [], capacity: 0 },
  ];
  it.each(capacityRows)("capacity: $name", ({ cc, dests, capacity }) => {
    const rt = new RevisionThrottler({ containerConcurrency: cc });
    rt.updateDestinations(dests);
    expect(rt.capacity).toBe(capacity);
  });

  it("never sends more than CC requests to a pod and spreads them", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 2 });
    rt.updateDestinations(["b", "a"]);
    const held = [rt.tryAcquire(), rt.tryAcquire(), rt.tryAcquire(), rt.tryAcquire()];
    expect(held.map((t) => t?.dest)).toEqual(["a", "a", "b", "b"]);
    expect(rt.tryAcquire()).toBeUndefined();
    for (const t of held) if (t) rt.release(t);
    expect(rt.inFlight).toBe(0);
  });

  it("queues callers until a pod appears, answering them in arrival order", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const order: string[] = [];
    const calls = ["x", "y", "z"].map((n) =>
      rt.try(undefined, async (dest) => {
        order.push(`${n}@${dest}`);
        await settle();
      }),
    );
    await settle();
    expect(rt.waiting).toBe(3);
    rt.updateDestinations(["pod-1"]);
    await Promise.all(calls);
    expect(order).toEqual(["x@pod-1", "y@pod-1", "z@pod-1"]);
  });

  it("bounds its queue: overflow is QueueFullError", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1, queueLimit: 2 });
    const a = rt.acquire();
    const b = rt.acquire();
    await expect(rt.acquire()).rejects.toBeInstanceOf(QueueFullError);
    const rt0 = new RevisionThrottler({ containerConcurrency: 0, queueLimit: 1 });
    const c = rt0.acquire();
    await expect(rt0.acquire()).rejects.toBeInstanceOf(QueueFullError);
    rt.updateDestinations(["p"]);
    rt0.updateDestinations(["p"]);
    rt.release(await a);
    rt.release(await b);
    rt0.release(await c);
  });

  it("a cancelled waiter leaves; the others still get served", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    const ac = new AbortController();
    const gone = rt.acquire(ac.signal);
    const stays = rt.acquire();
    ac.abort();
    await expect(gone).rejects.toBeInstanceOf(CancelledError);
    rt.updateDestinations(["p"]);
    const t = await stays;
    expect(t.dest).toBe("p");
    expect(rt.inFlight).toBe(1);
  });

  it("keeps in-flight counts of pods that stay across updates", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    rt.updateDestinations(["a"]);
    const t = rt.tryAcquire();
    rt.updateDestinations(["a", "b"]);
    expect(rt.tryAcquire()?.dest).toBe("b");
    expect(t?.inFlight).toBe(1);
  });

  it("admitted callers that find no pod wait for one instead of spinning", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    rt.updateDestinations(["a"]);
    const first = rt.tryAcquire();
    // The capacity is forced above what the pods can hold (as during a racing update).
    rt.updateCapacity(MAX_INT32);
    let got: string | undefined;
    const p = rt.acquire().then((t) => {
      got = t.dest;
      return t;
    });
    await settle();
    expect(got).toBeUndefined();
    if (first) rt.release(first);
    rt.release(await p);
    expect(got).toBe("a");
  });

  it.each([
    { name: "CC 1", cc: 1 },
    { name: "CC 0 (infinite breaker)", cc: 0 },
  ])("a failing revision refuses every waiter with the cause and keeps no count: $name", async ({ cc }) => {
    const rt = new RevisionThrottler({ containerConcurrency: cc, queueLimit: 5 });
    const waiting = [rt.acquire(), rt.acquire(), rt.acquire()];
    await settle();
    rt.rejectWaiting(new RevisionFailedError("app exited with code 3"));
    for (const w of waiting) await expect(w).rejects.toThrow("app exited with code 3");
    expect(rt.waiting).toBe(0);
    expect(rt.inFlight).toBe(0);
    // The queue's full room is there again, and a pod still serves the next caller.
    const next = [1, 2, 3, 4, 5].map(() => rt.acquire());
    rt.updateDestinations(["p"]);
    const t = await next[0];
    expect(t?.dest).toBe("p");
    if (t) rt.release(t);
    for (const w of next.slice(1)) rt.release(await w);
    expect(rt.inFlight).toBe(0);
  });

  it("admitted callers looking for a pod are refused too, and give their admission back", async () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    rt.updateDestinations(["a"]);
    const first = rt.tryAcquire();
    rt.updateCapacity(MAX_INT32);
    const looking = rt.acquire();
    await settle();
    rt.rejectWaiting(new RevisionFailedError("listening on 8099, not on $PORT"));
    await expect(looking).rejects.toBeInstanceOf(RevisionFailedError);
    if (first) rt.release(first);
    expect(rt.inFlight).toBe(0);
  });

  it("subsets pods across activators", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 3 });
    rt.updateActivatorIps(["10.0.0.1", "10.0.0.2"], "10.0.0.2");
    rt.updateDestinations(["p0", "p1", "p2", "p3"]);
    expect(rt.assignedTrackers.map((t) => t.dest)).toEqual(["p2", "p3"]);
    expect(rt.capacity).toBe(6);
  });
});

describe("Throttler", () => {
  it("routes by revision and rejects unknown ones", async () => {
    const th = new Throttler({ queueLimit: 5, random: () => 0.3 });
    th.upsert("ns/r", 0);
    th.updateDestinations("ns/r", ["p1", "p2"]);
    expect(await th.try("ns/r", undefined, (d) => d)).toMatch(/^p[12]$/);
    await expect(th.try("ns/other", undefined, (d) => d)).rejects.toBeInstanceOf(UnknownRevisionError);
    expect(th.upsert("ns/r", 0)).toBe(th.get("ns/r"));
    expect(th.upsert("ns/r", 4)).not.toBe(undefined);
    expect(th.get("ns/r")?.containerConcurrency).toBe(4);
  });
});
