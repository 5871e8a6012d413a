import { describe, expect, it } from "vitest";
import { EdgeScaling, type EdgeTick } from "./edge-scaling.js";

const T0 = 1_700_000_000_000;
const FAST = { "stable-window": "6s", "scale-to-zero-grace-period": "4s", target: "1" };

function scaling(autoscaling: Record<string, unknown> = FAST): EdgeScaling {
  const s = EdgeScaling.create("default/hello", 1, T0, autoscaling);
  if (!s.ok) throw new Error(JSON.stringify(s.issues));
  return s.value;
}

describe("EdgeScaling (the KPA decider fed by the edge's requests, then the cluster's scale step)", () => {
  it("0 -> N under load, and back to 0 only after the stable window and the grace period", () => {
    const s = scaling();
    for (let i = 0; i < 5; i++) s.requestIn(T0);
    const sent: { at: number; replicas: number }[] = [];
    // The platform follows: the pods ready at each tick are what was last asked for.
    const run = (from: number, to: number) => {
      let last: EdgeTick | undefined;
      for (let t = from; t <= to; t += 2000) {
        last = s.tick(T0 + t, s.replicas);
        if (last.changed) sent.push({ at: t, replicas: last.replicas });
      }
      return last as EdgeTick;
    };
    expect(run(2000, 20_000).replicas).toBeGreaterThan(1);
    for (let i = 0; i < 5; i++) s.requestOut(T0 + 20_000);
    const end = run(22_000, 80_000);
    expect(end.replicas).toBe(0);
    expect(sent[0]?.replicas).toBeGreaterThan(0);
    const zero = sent.find((x) => x.replicas === 0);
    // The load ended at 20 s: no scale to zero before the stable window (6 s) plus the grace period (4 s).
    expect(zero?.at).toBeGreaterThanOrEqual(20_000 + 6000 + 4000);
    expect(end.reason).toMatch(/grace period/);
  });

  it("a wake sent outside a tick counts as asked for: the next tick does not send 1 again", () => {
    const s = scaling();
    s.woke(T0);
    s.requestIn(T0);
    const t = s.tick(T0 + 2000, 1);
    expect(t.replicas).toBeGreaterThanOrEqual(1);
    expect(t.changed).toBe(t.replicas !== 1);
  });

  it("min-scale keeps it from going to zero; a bad key is an issue naming it", () => {
    const s = scaling({ ...FAST, "min-scale": "1" });
    expect(s.tick(T0 + 2000, 0)).toMatchObject({ replicas: 1, changed: true });
    const bad = EdgeScaling.create("default/x", 1, T0, { "stable-window": "1s" });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path)).toEqual(["autoscaling.stable-window"]);
  });
});
