import { ManualClock } from "@thaw/clock/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-config.js";
import { LeaderElector } from "./leader-elector.js";
import { EmulatedApiServer } from "./testing/api-server.js";

describe("LeaderElector on a Lease of the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let clock: ManualClock;
  const electors: LeaderElector[] = [];
  const make = (identity: string) => {
    const e = new LeaderElector({
      kubeConfig: kubeConfigFor({ server: api.url }),
      namespace: "thaw",
      name: "thaw-autoscaler",
      identity,
      clock,
    });
    electors.push(e);
    return e;
  };
  /** Moves the manual clock on in small steps, letting each elector's HTTP round trip finish. */
  const run = async (ms: number, until?: () => boolean) => {
    for (let t = 0; t < ms; t += 250) {
      await clock.advance(250);
      await Promise.all(electors.map((e) => e.settled()));
      if (until?.()) return;
    }
  };
  const lease = () =>
    api.get("leases", "thaw", "thaw-autoscaler")?.spec as Record<string, unknown> | undefined;

  beforeEach(async () => {
    api = new EmulatedApiServer();
    await api.start();
    clock = new ManualClock(Date.UTC(2026, 0, 1));
  });
  afterEach(async () => {
    for (const e of electors.splice(0)) await e.stop({ release: false });
    await api.close();
  });

  it("one leads, the other follows; when the leader stops renewing, the follower takes over within 15 s", async () => {
    const a = make("autoscaler-a");
    const b = make("autoscaler-b");
    a.start();
    await a.settled();
    b.start();
    await b.settled();
    expect([a.leading, b.leading]).toEqual([true, false]);
    expect(b.holder).toBe("autoscaler-a");
    expect(lease()).toMatchObject({
      holderIdentity: "autoscaler-a",
      leaseDurationSeconds: 10,
      leaseTransitions: 0,
    });
    await run(20_000);
    expect([a.leading, b.leading]).toEqual([true, false]);
    // The leader dies: no release, no more renewals.
    await a.stop({ release: false });
    const died = clock.now();
    await run(30_000, () => b.leading);
    expect(b.leading).toBe(true);
    expect(clock.now() - died).toBeLessThanOrEqual(15_000);
    expect(clock.now() - died).toBeGreaterThanOrEqual(10_000);
    expect(lease()).toMatchObject({ holderIdentity: "autoscaler-b", leaseTransitions: 1 });
    expect(String(lease()?.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it("a leader that stops on purpose releases the Lease: the follower takes over at its next retry", async () => {
    const a = make("autoscaler-a");
    const b = make("autoscaler-b");
    a.start();
    await a.settled();
    b.start();
    await b.settled();
    await a.stop();
    const released = clock.now();
    await run(10_000, () => b.leading);
    expect(b.leading).toBe(true);
    expect(clock.now() - released).toBeLessThanOrEqual(3000);
  });

  it("two candidates racing for a missing Lease: exactly one wins (the other's write gets 409)", async () => {
    const a = make("autoscaler-a");
    const b = make("autoscaler-b");
    a.start();
    b.start();
    await Promise.all([a.settled(), b.settled()]);
    await run(4000);
    expect([a.leading, b.leading].filter(Boolean)).toHaveLength(1);
    expect(api.requests.some((r) => r.status === 409)).toBe(true);
  });

  it("a leader that cannot reach the API server steps down before its lease runs out", async () => {
    const a = make("autoscaler-a");
    a.start();
    await a.settled();
    expect(a.leading).toBe(true);
    api.failNext(
      { path: "/apis/coordination.k8s.io/v1/namespaces/thaw/leases/thaw-autoscaler" },
      { status: 500, count: 100 },
    );
    const cut = clock.now();
    await run(12_000, () => !a.leading);
    expect(a.leading).toBe(false);
    expect(clock.now() - cut).toBeLessThan(10_000);
  });
});
