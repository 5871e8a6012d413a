import { Decider, type DeciderSpec } from "@thaw/autoscaler";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

type Rec = Record<string, unknown>;

/** An arbitrary origin for step times. */
const T0 = 1_700_000_010_000;
/** Go's zero time in Unix ms: the scale-down-delay vectors count from it so their 2 s slots line up. */
const GO_ZERO_MS = -62_135_596_800_000;

/** The vector's spec, with Go's zero values for absent fields. */
function specOf(s: Rec): DeciderSpec {
  const n = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : 0);
  return {
    scalingMetric: s.scalingMetric === "rps" ? "rps" : "concurrency",
    targetValue: n("targetValue"),
    totalValue: n("totalValue"),
    targetBurstCapacity: n("targetBurstCapacity"),
    panicThreshold: n("panicThreshold"),
    maxScaleUpRate: n("maxScaleUpRate"),
    maxScaleDownRate: n("maxScaleDownRate"),
    activatorCapacity: n("activatorCapacity"),
    stableWindowMs: n("stableWindowSec") * 1000,
    scaleDownDelayMs: n("scaleDownDelaySec") * 1000,
    initialScale: n("initialScale"),
    reachable: s.reachable === true,
    activationScale: n("activationScale"),
  };
}

/** One decider, constructed and then (when the vector has steps) stepped through its ticks. */
function runDecider(v: Vector): Outcome {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  if (typeof input.spec !== "object" || input.spec === null) return fail("input.spec must be an object");
  const spec = specOf(input.spec as Rec);
  const base = spec.scaleDownDelayMs > 0 || typeof input.timeBase === "string" ? GO_ZERO_MS : T0;
  const created = input.readyPodsAtCreation;
  const decider = new Decider(spec, created === "error" ? null : (created as number), base);
  const steps = input.steps as Rec[] | undefined;
  if (!steps) {
    if (typeof e.panicking !== "boolean") return fail("expect.panicking must be a boolean");
    if (decider.panicking !== e.panicking)
      return fail(`panicking: expected ${e.panicking}, got ${decider.panicking}`);
    if (decider.maxPanicPods !== e.maxPanicPods) {
      return fail(`maxPanicPods: expected ${e.maxPanicPods}, got ${decider.maxPanicPods}`);
    }
    return pass;
  }
  const init = input.initialState as Rec | undefined;
  if (init) {
    decider.restore({
      panicTimeMs: base + (init.panicStartOffsetSec as number) * 1000,
      maxPanicPods: init.maxPanicPods as number,
    });
  }
  const tol = typeof e.excessBurstCapacityTolerance === "number" ? e.excessBurstCapacityTolerance : 0;
  const perStep = Array.isArray(e.perStep) ? (e.perStep as Rec[]) : undefined;
  for (const [i, step] of steps.entries()) {
    if (step.updateSpecBefore) decider.update(specOf(step.updateSpecBefore as Rec));
    const now = base + (step.atSec as number) * 1000;
    const res = decider.scale(now, {
      readyPods: step.podCountError !== undefined ? null : (step.readyPods as number),
      metrics:
        step.metricsError !== undefined
          ? null
          : { stable: step.observedStable as number, panic: step.observedPanic as number },
    });
    const want = (step.expect as Rec | undefined) ?? perStep?.[i];
    if (!want) return fail(`step ${i}: no expectation in the vector`);
    const where = `step ${i} (t=${step.atSec}s)`;
    if (res.scaleValid !== want.scaleValid)
      return fail(`${where}: scaleValid expected ${want.scaleValid}, got ${res.scaleValid}`);
    if (res.desiredPodCount !== want.desiredPodCount) {
      return fail(`${where}: desiredPodCount expected ${want.desiredPodCount}, got ${res.desiredPodCount}`);
    }
    if (Math.abs(res.excessBurstCapacity - (want.excessBurstCapacity as number)) > tol) {
      return fail(
        `${where}: excessBurstCapacity expected ${want.excessBurstCapacity}±${tol}, got ${res.excessBurstCapacity}`,
      );
    }
    if (typeof step.expectPanicStartSec === "number") {
      const got = decider.panicTimeMs === undefined ? undefined : (decider.panicTimeMs - base) / 1000;
      if (got !== step.expectPanicStartSec)
        return fail(`${where}: panic start expected ${step.expectPanicStartSec}s, got ${got}`);
    }
    if (typeof step.expectPanicking === "boolean" && decider.panicking !== step.expectPanicking) {
      return fail(`${where}: panicking expected ${step.expectPanicking}, got ${decider.panicking}`);
    }
  }
  return pass;
}

/** Both kinds kpa-decider.json holds: a script of ticks, or construction checks only. */
export const kinds: readonly Kind[] = [
  {
    name: "decider ticks",
    input: ["readyPodsAtCreation", "spec", "steps"],
    optionalInput: ["initialState", "timeBase"],
    expect: [],
    optionalExpect: ["perStep", "excessBurstCapacityTolerance"],
    run: runDecider,
  },
  {
    name: "decider construction",
    input: ["readyPodsAtCreation", "spec"],
    expect: ["panicking", "maxPanicPods"],
    run: runDecider,
  },
];

/** Drives @thaw/autoscaler's Decider with kpa-decider.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
