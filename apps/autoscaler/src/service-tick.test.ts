import { createHook } from "node:async_hooks";
import type { Clock, TimerHandle } from "@thaw/clock";
import { emptyStat } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import type { AutoscalerEvent } from "./events.js";
import { policyFor } from "./policy.js";
import type { PodInfo, Scaler } from "./scalers/scaler.js";
import { AutoscalerService, DECIDER_TICK_MS } from "./service.js";

/** A clock whose timers run only when the test fires them, synchronously, so one tick can be observed alone. */
function handClock() {
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const clock: Clock & { fire(ms: number): void } = {
    now: () => 1_800_000_000_000,
    setTimeout(fn: () => void, ms: number): TimerHandle {
      timers.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (h: TimerHandle) => timers.delete(h as number),
    sleep: async () => {},
    /** Runs every pending timer armed for `ms` (the loops re-arm theirs for later). */
    fire(ms: number) {
      for (const [id, t] of [...timers]) {
        if (t.ms !== ms) continue;
        timers.delete(id);
        t.fn();
      }
    },
  };
  return clock;
}

/** Every revision held at its min-scale of 1 by one ready pod: a quiet tick has nothing to ask of the scaler. */
function heldScaler(): Scaler {
  const pod: PodInfo = { name: "p", address: "127.0.0.1:1", ready: true, startedAt: 0 };
  const replicas = new Map<string, number>();
  return {
    scale: async (rev, desired) => {
      replicas.set(rev.name, desired);
    },
    replicas: (rev) => replicas.get(rev.name) ?? 1,
    pods: () => [pod],
    subscribe: () => () => {},
    close: async () => {},
  };
}

describe("AutoscalerService tick (issue 30.5)", () => {
  it("a quiet tick holds no promise per revision and still publishes a scale it awaits", async () => {
    const clock = handClock();
    const service = new AutoscalerService({ scaler: heldScaler(), clock, random: () => 0 });
    const policy = policyFor({ containerConcurrency: 10, autoscaling: { "min-scale": 1 } });
    if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
    const revisions = 200;
    for (let i = 0; i < revisions; i++) service.addRevision({ namespace: "t", name: `r${i}` }, policy.value);
    service.start();
    await new Promise((resolve) => setImmediate(resolve));
    const events: AutoscalerEvent[] = [];
    service.on((e) => events.push(e));

    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === "PROMISE") promises++;
      },
    });
    hook.enable();
    try {
      clock.fire(DECIDER_TICK_MS);
    } finally {
      hook.disable();
    }
    // Nothing changed on an idle tick: nothing is published, and the whole tick ran without a promise chain
    // per revision (each chain lived until the tick settled: promoted, then collected as old space).
    expect(events).toEqual([]);
    expect(promises).toBeLessThan(revisions);

    // A tick that does await (the scale request of a revision under load) still completes and publishes.
    const stat = { ...emptyStat("activator"), averageConcurrentRequests: 50, requestCount: 50 };
    service.record([{ rev: { namespace: "t", name: "r7" }, stat }]);
    clock.fire(DECIDER_TICK_MS);
    await service.stop();
    expect(events.filter((e) => e.type === "scale")).toMatchObject([{ name: "r7", from: 1, to: 8 }]);
  });
});
