import { ManualClock } from "@thaw/clock/testing";
import { Drainer } from "@thaw/protocol";
import { fail, type Outcome, pass, type Vector } from "../types.js";
import { requestFrom } from "./probe-protocol-check.js";

/**
 * Go's test moves its mock clock in nanoseconds ("100ms - 1ns"); our clock counts milliseconds as
 * doubles. 2^-20 ms (about 0.95 ns) stands in for 1 ns because sums of it stay exact in binary, so
 * "just before the deadline" and "at the deadline" are told apart without rounding surprises.
 */
const ONE_NS_MS = 2 ** -20;

function parseMs(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return undefined;
  if (value.trim() === "1ns") return ONE_NS_MS;
  const m = /^(\d+(?:\.\d+)?)\s*-\s*1ns$/.exec(value.trim());
  return m ? Number(m[1]) - ONE_NS_MS : undefined;
}

interface Step {
  op: string;
  count?: number;
  ms?: unknown;
  expectStatus?: number;
  expectTimerReset?: boolean;
  expectAllBlocked?: boolean;
}

/** Runs knative/pkg's TestDrainMechanics script against a Drainer on a manual clock. */
export async function drainMechanics(v: Vector): Promise<Outcome> {
  const input = v.input as {
    quietPeriodMs: number;
    kubeletProbeHeaders: Record<string, string>;
    steps: Step[];
  };
  const expect = v.expect as { innerCalls?: number; allDrainCallsReturnAfterFinalAdvance?: boolean };
  const clock = new ManualClock(1_000_000);
  const drainer = new Drainer({ clock, quietPeriodMs: input.quietPeriodMs });
  let innerCalls = 0;
  const inner = () => {
    innerCalls++;
    return new Response("inner");
  };
  const drains: { done: boolean }[] = [];

  const timerCheck = (
    label: string,
    before: number | undefined,
    want: boolean | undefined,
  ): string | undefined => {
    if (want === undefined) return undefined;
    const after = drainer.quietDeadline;
    const reset = after !== before && after === clock.now() + drainer.quietPeriodMs;
    if (reset !== want)
      return `${label}: timer reset ${reset}, want ${want} (deadline ${before} -> ${after})`;
    return undefined;
  };

  for (const [i, step] of input.steps.entries()) {
    const label = `steps[${i}] ${step.op}`;
    if (step.op === "request" || step.op === "probe") {
      const headers = step.op === "probe" ? input.kubeletProbeHeaders : {};
      for (let n = 0; n < (step.count ?? 1); n++) {
        const before = drainer.quietDeadline;
        const res = await drainer.handle(requestFrom(headers), inner);
        if (step.expectStatus !== undefined && res.status !== step.expectStatus) {
          return fail(`${label}: status ${res.status}, want ${step.expectStatus}`);
        }
        const bad = timerCheck(label, before, step.expectTimerReset);
        if (bad) return fail(bad);
      }
    } else if (step.op === "drainAsync") {
      for (let n = 0; n < (step.count ?? 1); n++) {
        const entry = { done: false };
        drains.push(entry);
        void drainer.drain().then(() => {
          entry.done = true;
        });
      }
      await clock.advance(0);
      if (step.expectAllBlocked && drains.some((d) => d.done)) return fail(`${label}: a drain call returned`);
    } else if (step.op === "advance") {
      const ms = parseMs(step.ms);
      if (ms === undefined) return fail(`${label}: cannot read duration ${JSON.stringify(step.ms)}`);
      await clock.advance(ms);
    } else {
      return fail(`${label}: unknown drain script op`);
    }
    const last = i === input.steps.length - 1;
    if (!last && drains.some((d) => d.done)) return fail(`${label}: drain returned before the final advance`);
  }
  for (const key of Object.keys(expect)) {
    if (key === "innerCalls") {
      if (innerCalls !== expect.innerCalls)
        return fail(`innerCalls ${innerCalls}, want ${expect.innerCalls}`);
    } else if (key === "allDrainCallsReturnAfterFinalAdvance") {
      const all = drains.length > 0 && drains.every((d) => d.done);
      if (all !== expect.allDrainCallsReturnAfterFinalAdvance)
        return fail(`all drain calls returned: ${all}`);
    } else {
      return fail(`adapter does not observe expect.${key}`);
    }
  }
  return pass;
}
