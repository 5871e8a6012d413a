import { describe, expect, it } from "vitest";
import { MAX_INT32 } from "./capacity.js";
import type { PodTracker } from "./pod-tracker.js";
import { RevisionThrottler } from "./revision-throttler.js";

const CIP = "rev-private.ns:8012";

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Takes slots with tryAcquire until refused or `bound` reached; returns what it got. */
function drain(rt: RevisionThrottler, bound: number): PodTracker[] {
  const got: PodTracker[] = [];
  for (let i = 0; i < bound; i++) {
    const t = rt.tryAcquire();
    if (!t) break;
    got.push(t);
  }
  return got;
}

describe("RevisionThrottler through a ClusterIP (d.2)", () => {
  // Hand-computed: numTrackers is 0, so cap = CC x backends, then max(1, cap / activators) when > 0;
  // CC 0 with backends is MAX_INT32 (the infinite breaker shows that as capacity 1 = open).
  const rows = [
    { name: "CC 0, 1 activator, 4 backends", cc: 0, activators: 1, backends: 4, cap: MAX_INT32 },
    { name: "CC 0, 3 activators, 4 backends", cc: 0, activators: 3, backends: 4, cap: MAX_INT32 },
    { name: "CC 0, 0 backends", cc: 0, activators: 1, backends: 0, cap: 0 },
    { name: "CC 1, 1 activator, 4 backends", cc: 1, activators: 1, backends: 4, cap: 4 },
    { name: "CC 1, 3 activators, 4 backends: 4/3", cc: 1, activators: 3, backends: 4, cap: 1 },
    { name: "CC 1, 3 activators, 2 backends: at least 1", cc: 1, activators: 3, backends: 2, cap: 1 },
    { name: "CC 10, 1 activator, 4 backends", cc: 10, activators: 1, backends: 4, cap: 40 },
    { name: "CC 10, 3 activators, 4 backends: 40/3", cc: 10, activators: 3, backends: 4, cap: 13 },
    { name: "CC 10, 3 activators, 0 backends", cc: 10, activators: 3, backends: 0, cap: 0 },
  ];
  it.each(rows)("capacity: $name", ({ cc, activators, backends, cap }) => {
    const rt = new RevisionThrottler({ containerConcurrency: cc, random: () => 0.5 });
    rt.updateActivators(activators, 0);
    rt.updateClusterIP(CIP, backends);
    expect(rt.capacity).toBe(cc === 0 ? Math.min(cap, 1) : cap);
    expect(rt.clusterIP).toBe(CIP);
    expect(rt.podTrackers).toEqual([]);
    expect(rt.assignedTrackers.map((t) => t.dest)).toEqual([CIP]);
    // Admissions match the capacity; CC 0 admits without limit (checked up to 500).
    const bound = 500;
    const got = drain(rt, bound);
    expect(got.length).toBe(Math.min(cap, bound));
    expect(new Set(got.map((t) => t.dest))).toEqual(new Set(got.length ? [CIP] : []));
    // The one tracker has no limit of its own: it holds every admitted request.
    expect(rt.assignedTrackers[0]?.inFlight).toBe(got.length);
    for (const t of got) rt.release(t);
    expect(rt.inFlight).toBe(0);
  });

  it("does not subset: 3 activators share the ClusterIP where pods would be split", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 10 });
    rt.updateActivators(3, 0);
    rt.updateDestinations(["a", "b", "c", "d"]);
    // Pod routing: activator 0 owns pod a plus leftover d, so CC x 2 trackers.
    expect(rt.assignedTrackers.map((t) => t.dest)).toEqual(["a", "d"]);
    expect(rt.capacity).toBe(20);
    rt.updateClusterIP(CIP, 4);
    expect(rt.capacity).toBe(13);
    rt.updateActivators(2, 1);
    expect(rt.capacity).toBe(20);
    expect(rt.assignedTrackers.map((t) => t.dest)).toEqual([CIP]);
  });

  const policies = [
    { name: "random choice of 2 (CC 0)", cc: 0, want: 50 },
    { name: "first available (CC 2)", cc: 2, want: 6 },
    { name: "round robin (CC 10)", cc: 10, want: 30 },
  ];
  it.each(policies)("$name sends every request to the one ClusterIP tracker", ({ cc, want }) => {
    const rt = new RevisionThrottler({ containerConcurrency: cc, random: () => 0.25 });
    rt.updateDestinations(["p1", "p2"]);
    rt.updateClusterIP(CIP, 3);
    const got = drain(rt, want);
    expect(got.length).toBe(want);
    expect(got.every((t) => t.dest === CIP)).toBe(true);
    if (cc > 0) expect(rt.tryAcquire()).toBeUndefined();
    for (const t of got) rt.release(t);
    expect(rt.inFlight).toBe(0);
  });

  it("a waiter blocked with 0 backends is released when the ClusterIP gets 3", async () => {
    for (const cc of [0, 1, 10]) {
      const rt = new RevisionThrottler({ containerConcurrency: cc });
      rt.updateClusterIP(CIP, 0);
      expect(rt.capacity).toBe(0);
      let got: PodTracker | undefined;
      const p = rt.acquire().then((t) => {
        got = t;
      });
      await settle();
      expect(got).toBeUndefined();
      expect(rt.waiting).toBe(1);
      rt.updateClusterIP(CIP, 3);
      await p;
      expect(got?.dest).toBe(CIP);
      rt.release(got as PodTracker);
      expect(rt.inFlight).toBe(0);
    }
  });

  it("keeps the tracker across count updates and updateDestinations returns to pods", () => {
    const rt = new RevisionThrottler({ containerConcurrency: 1 });
    rt.updateClusterIP(CIP, 2);
    const held = rt.tryAcquire();
    expect(held?.dest).toBe(CIP);
    rt.updateClusterIP(CIP, 5);
    expect(rt.assignedTrackers[0]).toBe(held);
    expect(rt.assignedTrackers[0]?.inFlight).toBe(1);
    rt.updateDestinations(["p1"]);
    expect(rt.clusterIP).toBeUndefined();
    expect(rt.capacity).toBe(1);
    // The request still in flight to the ClusterIP is given back without harm.
    rt.release(held as PodTracker);
    expect(rt.tryAcquire()?.dest).toBe("p1");
  });
});
