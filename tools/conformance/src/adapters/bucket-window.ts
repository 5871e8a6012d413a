import {
  LinearWindow,
  MaxWindow,
  MetricCollector,
  podSampleSize,
  roundToNDigits,
  smoothingCoefficient,
  type TimedBuckets,
  TimedMaxWindow,
  WeightedWindow,
} from "@thaw/autoscaler";
import { near } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

/** Base time for window vectors: Unix seconds divisible by 30, as the README suggests. */
const T0 = 1_700_000_010_000;

type Rec = Record<string, unknown>;

function num(v: unknown, what: string): number {
  if (typeof v !== "number") throw new Error(`vector field ${what} is not a number`);
  return v;
}

function runWindow(v: Vector): Outcome {
  const input = v.input as Rec;
  const kind = input.kind as string;
  const windowMs = num(input.windowMs, "windowMs");
  const g = num(input.granularityMs, "granularityMs");
  const w: TimedBuckets =
    kind === "weighted" ? new WeightedWindow(windowMs, g) : new LinearWindow(windowMs, g);
  const expect = v.expect as Rec;
  if (expect.isEmptyBeforeFirstWrite === true && !w.isEmpty(T0))
    return fail("window not empty before first write");
  let firstEqLastBeforeResize: boolean | undefined;
  const ops = (input.ops ?? []) as Rec[];
  for (const [i, op] of ops.entries()) {
    const at = (op.atMs as number | undefined) ?? 0;
    const where = `ops[${i}] ${op.op}@${at}`;
    switch (op.op) {
      case "record":
        w.record(T0 + at, num(op.value, "value"));
        break;
      case "windowAverage": {
        const got = w.windowAverage(T0 + at);
        const e = op.expect;
        if (typeof e === "number") {
          const ok = kind === "weighted" ? near(got, e, 1e-9) : got === e;
          if (!ok) return fail(`${where}: expected ${e}, got ${got}`);
        } else {
          const er = e as Rec;
          if (!near(got, num(er.value, "expect.value"), num(er.tolerance, "expect.tolerance"))) {
            return fail(`${where}: expected ${er.value}±${er.tolerance}, got ${got}`);
          }
        }
        break;
      }
      case "windowAverageRounded3": {
        const got = roundToNDigits(3, w.windowAverage(T0 + at));
        if (got !== op.expect) return fail(`${where}: expected ${op.expect}, got ${got}`);
        break;
      }
      case "bucketSum": {
        const got = w.bucketSum(T0 + at);
        if (!near(got, num(op.expect, "expect"), 1e-9))
          return fail(`${where}: expected ${op.expect}, got ${got}`);
        break;
      }
      case "bucketCount":
        if (w.bucketCount !== op.expect)
          return fail(`${where}: expected ${op.expect} buckets, got ${w.bucketCount}`);
        break;
      case "resize": {
        firstEqLastBeforeResize = w.firstWriteMs !== undefined && w.firstWriteMs === w.lastWriteMs;
        const changed = w.resize(num(op.windowMs, "windowMs"), T0 + num(op.wallClockMs, "wallClockMs"));
        if (op.expectNoOp === true && changed) return fail(`${where}: expected a no-op resize`);
        if (op.expectBuckets !== undefined && w.bucketCount !== op.expectBuckets) {
          return fail(`${where}: expected ${op.expectBuckets} buckets, got ${w.bucketCount}`);
        }
        if (op.expectSmoothingCoeff !== undefined) {
          if (!(w instanceof WeightedWindow))
            return fail(`${where}: smoothing coefficient on a linear window`);
          if (!near(w.smoothingCoefficient, num(op.expectSmoothingCoeff, "coeff"), 1e-12)) {
            return fail(
              `${where}: expected coefficient ${op.expectSmoothingCoeff}, got ${w.smoothingCoefficient}`,
            );
          }
        }
        break;
      }
      default:
        return fail(`unknown op ${String(op.op)}`);
    }
  }
  if (input.inspectAtMs !== undefined) {
    const got: Record<string, number> = {};
    w.forEachBucket(T0 + num(input.inspectAtMs, "inspectAtMs"), (start, value) => {
      if (value !== 0) got[String(start - T0)] = value;
    });
    const want = expect.nonZeroBucketsByStartMs as Record<string, number>;
    const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
    for (const k of keys) {
      if (got[k] !== want[k]) return fail(`bucket at ${k} ms: expected ${want[k]}, got ${got[k]}`);
    }
  }
  if (expect.firstWriteEqualsLastWriteBeforeResize !== undefined) {
    if (firstEqLastBeforeResize !== expect.firstWriteEqualsLastWriteBeforeResize) {
      return fail(
        `firstWrite == lastWrite before resize: expected ${expect.firstWriteEqualsLastWriteBeforeResize}`,
      );
    }
  }
  if ("firstWriteAfterResize" in expect) {
    const want = expect.firstWriteAfterResize;
    const got = w.firstWriteMs === undefined ? null : w.firstWriteMs - T0;
    if (got !== want) return fail(`firstWrite after resize: expected ${want}, got ${got}`);
  }
  return pass;
}

function runCollector(v: Vector): Outcome {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  const c = new MetricCollector();
  const spec = {
    stableWindowMs: num(input.stableWindowMs, "stableWindowMs"),
    panicWindowMs: num(input.panicWindowMs, "panicWindowMs"),
    scrapeTarget: (input.scrapeTarget as string | undefined) ?? "",
  };
  c.createOrUpdate("ns/rev", spec, T0);
  const readAt = T0 + num(input.readAtMs, "readAtMs");
  if (typeof e.beforeAnyRecord === "string" && e.beforeAnyRecord.startsWith("error")) {
    const r = c.stableAndPanicConcurrency("ns/rev", readAt);
    if (r.ok || r.error !== "no-data")
      return fail(`before any record: expected "no data", got ${JSON.stringify(r)}`);
  }
  for (const s of input.stats as Rec[]) {
    c.record("ns/rev", T0 + num(s.atMs, "atMs"), {
      averageConcurrentRequests: (s.averageConcurrentRequests as number | undefined) ?? 0,
      averageProxiedConcurrentRequests: (s.averageProxiedConcurrentRequests as number | undefined) ?? 0,
      requestCount: (s.requestCount as number | undefined) ?? 0,
      proxiedRequestCount: (s.proxiedRequestCount as number | undefined) ?? 0,
    });
  }
  const tol = (e.tolerance as number | undefined) ?? 0;
  const conc = c.stableAndPanicConcurrency("ns/rev", readAt);
  const rps = c.stableAndPanicRPS("ns/rev", readAt);
  if (!conc.ok || !rps.ok) return fail(`reading failed: ${JSON.stringify({ conc, rps })}`);
  const checks: [string, number, unknown][] = [
    ["stableConcurrency", conc.stable, e.stableConcurrency],
    ["panicConcurrency", conc.panic, e.panicConcurrency],
    ["stableRPS", rps.stable, e.stableRPS],
    ["panicRPS", rps.panic, e.panicRPS],
  ];
  for (const [name, got, want] of checks) {
    if (!near(got, num(want, name), tol)) return fail(`${name}: expected ${want}, got ${got}`);
  }
  return pass;
}

function runMax(v: Vector): Outcome {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  if (input.kind === "maxWindow") {
    const w = new MaxWindow(num(input.size, "size"));
    const values = input.values as number[];
    const indices = input.indices as number[];
    const want = e.currentAfterEach as number[];
    for (let i = 0; i < values.length; i++) {
      w.record(indices[i] as number, values[i] as number);
      if (w.current() !== want[i]) return fail(`after write ${i}: expected ${want[i]}, got ${w.current()}`);
    }
    return pass;
  }
  const w = new TimedMaxWindow(
    num(input.durationMs, "durationMs"),
    num(input.granularityMs, "granularityMs"),
  );
  for (const r of input.records as Rec[]) w.record(T0 + num(r.atMs, "atMs"), num(r.value, "value"));
  return w.current() === e.current ? pass : fail(`expected ${e.current}, got ${w.current()}`);
}

function smoothing(v: Vector): Outcome {
  const e = v.expect as Rec;
  const got = smoothingCoefficient(num(v.input.numBuckets, "numBuckets"));
  if ("exactDerived" in e && !near(got, num(e.exactDerived, "exactDerived"), 1e-12))
    return fail(`expected ${e.exactDerived}, got ${got}`);
  // The Go test's own tolerance.
  if (!near(got, num(e.value, "value"), 1e-4)) return fail(`expected ≈${e.value}, got ${got}`);
  return pass;
}

const isKind = (...kinds: string[]) => ({
  test: (v: Vector) => kinds.includes(String(v.input.kind)),
  text: `input.kind in ${kinds.join(" | ")}`,
});

/** Every kind bucket-window.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "averaging window script",
    input: ["kind", "windowMs", "granularityMs", "ops"],
    optionalInput: ["t0", "inspectAtMs"],
    when: isKind("linear", "weighted"),
    expect: [],
    optionalExpect: [
      "opsAsserted",
      "nonZeroBucketsByStartMs",
      "isEmptyBeforeFirstWrite",
      "firstWriteAfterResize",
      "firstWriteEqualsLastWriteBeforeResize",
    ],
    run: runWindow,
  },
  {
    name: "max window",
    input: ["kind", "size", "values", "indices"],
    when: isKind("maxWindow"),
    expect: ["currentAfterEach"],
    run: runMax,
  },
  {
    name: "timed max window",
    input: ["kind", "durationMs", "granularityMs", "records"],
    optionalInput: ["t0"],
    when: isKind("timedMaxWindow"),
    expect: ["current"],
    run: runMax,
  },
  {
    name: "metric collector",
    input: ["stableWindowMs", "panicWindowMs", "readAtMs", "stats"],
    optionalInput: ["granularityMs", "scrapeTarget"],
    expect: ["stableConcurrency", "panicConcurrency", "stableRPS", "panicRPS"],
    optionalExpect: ["tolerance", "beforeAnyRecord"],
    run: runCollector,
  },
  {
    name: "weighted smoothing coefficient",
    input: ["numBuckets"],
    expect: ["value"],
    optionalExpect: ["exactDerived"],
    run: smoothing,
  },
  {
    name: "round to n digits",
    input: ["digits", "value"],
    expect: ["value"],
    run: (v) => {
      const got = roundToNDigits(num(v.input.digits, "digits"), num(v.input.value, "value"));
      return got === v.expect.value ? pass : fail(`expected ${v.expect.value}, got ${got}`);
    },
  },
  {
    name: "scrape sample size",
    input: ["population"],
    expect: ["sampleSize"],
    run: (v) => {
      const got = podSampleSize(num(v.input.population, "population"));
      return got === v.expect.sampleSize ? pass : fail(`expected ${v.expect.sampleSize}, got ${got}`);
    },
  },
];

/** Drives @thaw/autoscaler's windows, collector, max windows and helpers with bucket-window.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
