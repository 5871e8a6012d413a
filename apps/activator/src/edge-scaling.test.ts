import { describe, expect, it } from "vitest";
import { EdgeScaling } from "./edge-scaling.js";

describe("EdgeScaling (the KPA decider fed by the edge's own requests)", () => {
  it("scales up under load and back to zero once the stable window is quiet", () => {
    const t0 = 1_700_000_000_000;
    const s = new EdgeScaling("default/hello", 1, t0, { "autoscaling.knative.dev/target": "1" });
    // 5 requests held for 20 s: concurrency 5 against a target of 1 per pod (70 % utilisation).
    for (let i = 0; i < 5; i++) s.requestIn(t0);
    let last = { desired: 0, changed: false, excessBurstCapacity: 0 };
    for (let t = 2000; t <= 20_000; t += 2000) last = s.tick(t0 + t, Math.max(1, last.desired));
    expect(last.desired).toBeGreaterThanOrEqual(5);
    for (let i = 0; i < 5; i++) s.requestOut(t0 + 20_000);
    // The scaler follows: the pods ready at each tick are what the previous tick asked for.
    const seen: number[] = [];
    let ready = last.desired;
    for (let t = 22_000; t <= 200_000; t += 2000) {
      ready = s.tick(t0 + t, ready).desired;
      seen.push(ready);
    }
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe(0);
  });

  it("reports a change only when the desired count moves", () => {
    const t0 = 1_700_000_000_000;
    const s = new EdgeScaling("default/idle", 0, t0);
    expect(s.tick(t0 + 2000, 0)).toMatchObject({ desired: 0, changed: false });
  });
});
