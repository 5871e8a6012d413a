import {
  type AutoscalerConfig,
  applyScale,
  DEFAULT_AUTOSCALER_CONFIG,
  deciderSpecFor,
  initialDeciderStatus,
  initialScaleFor,
  type LoadStat,
  metricSpecFor,
  metricWindows,
  parseAnnotations,
  parseAutoscalerConfig,
  podAutoscalerScales,
  resolveMetricTarget,
  type ScaleStep,
  sameSign,
  scaleSettingsFor,
  shouldPoke,
  shouldPublish,
} from "@thaw/autoscaler";
import { diff, near } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

type Rec = Record<string, unknown>;
const T0 = 1_700_000_010_000;

/** The vectors' config objects use `...Sec`; ours uses `...Ms`. */
function toVectorConfig(c: AutoscalerConfig): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(c)) {
    if (k.endsWith("Ms")) out[`${k.slice(0, -2)}Sec`] = (v as number) / 1000;
    else out[k] = v;
  }
  return out;
}

function fromVectorConfig(partial: Rec | undefined): AutoscalerConfig {
  const out: Rec = { ...DEFAULT_AUTOSCALER_CONFIG };
  for (const [k, v] of Object.entries(partial ?? {})) {
    if (k.endsWith("Sec")) out[`${k.slice(0, -3)}Ms`] = (v as number) * 1000;
    else out[k] = v;
  }
  return out as unknown as AutoscalerConfig;
}

function annotationsOf(input: Rec, config?: AutoscalerConfig) {
  return parseAnnotations((input.annotations ?? {}) as Record<string, string>, config).value;
}

function newConfig(v: Vector): Outcome {
  const r = parseAutoscalerConfig((v.input as Rec).data as Rec);
  const e = v.expect as Rec;
  if (e.error === true) return r.ok ? fail(`expected an error, parsed ${JSON.stringify(r.value)}`) : pass;
  if (!r.ok) return fail(`unexpected issues: ${JSON.stringify(r.issues)}`);
  const d = diff(toVectorConfig(r.value), e.config);
  return d ? fail(d) : pass;
}

function metricTarget(v: Vector): Outcome {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  const config = fromVectorConfig(input.config as Rec);
  const got = resolveMetricTarget(config, {
    containerConcurrency: input.containerConcurrency as number,
    annotations: annotationsOf(input),
  });
  if (
    !near(got.targetValue, e.targetValue as number, 1e-9) ||
    !near(got.totalValue, e.totalValue as number, 1e-9)
  ) {
    return fail(`expected ${JSON.stringify(e)}, got ${JSON.stringify(got)}`);
  }
  return pass;
}

function windows(v: Vector): Outcome {
  const input = v.input as Rec;
  const got = metricWindows(fromVectorConfig(input.config as Rec), annotationsOf(input));
  const d = diff(
    { stableWindowSec: got.stableWindowMs / 1000, panicWindowSec: got.panicWindowMs / 1000 },
    v.expect,
  );
  return d ? fail(d) : pass;
}

function decider(v: Vector): Outcome {
  const input = v.input as Rec;
  const config = fromVectorConfig(input.config as Rec);
  const s = deciderSpecFor(config, {
    containerConcurrency: input.containerConcurrency as number,
    annotations: annotationsOf(input, config),
    reachability: (input.reachability as "Reachable" | "Unreachable" | undefined) ?? "",
  });
  const got: Rec = {
    ...s,
    stableWindowSec: s.stableWindowMs / 1000,
    scaleDownDelaySec: s.scaleDownDelayMs / 1000,
  };
  delete got.stableWindowMs;
  delete got.scaleDownDelayMs;
  const d = diff(got, (v.expect as Rec).spec);
  return d ? fail(d) : pass;
}

function initialScale(v: Vector): Outcome {
  const input = v.input as Rec;
  const config = fromVectorConfig(input.config as Rec);
  const raw = input.annotationInitialScale;
  const ann = parseAnnotations(
    raw === null ? {} : { "autoscaling.knative.dev/initial-scale": raw as string },
    config,
  );
  const got = initialScaleFor(config, ann.value);
  const want = (v.expect as Rec).initialScale;
  return got === want ? pass : fail(`expected ${want}, got ${got}`);
}

function scaleApply(v: Vector): Outcome {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  const pa = input.pa as Rec;
  const sks = input.sks as Rec;
  const cfgIn = input.config as Rec;
  const config = fromVectorConfig(cfgIn);
  const ann: Record<string, string> = { ...((pa.annotations ?? {}) as Record<string, string>) };
  if (input.minScaleAnnotation !== null && input.minScaleAnnotation !== undefined) {
    ann["autoscaling.knative.dev/min-scale"] = String(input.minScaleAnnotation);
  }
  if (input.maxScaleAnnotation !== null && input.maxScaleAnnotation !== undefined) {
    ann["autoscaling.knative.dev/max-scale"] = String(input.maxScaleAnnotation);
  }
  const parsed = parseAnnotations(ann, config);
  if (parsed.issues.length > 0) return fail(`annotations rejected: ${JSON.stringify(parsed.issues)}`);
  const settings = scaleSettingsFor(config, parsed.value, {
    progressDeadlineMs: (cfgIn.progressDeadlineSec as number) * 1000,
    activationTimeoutBufferMs: (cfgIn.activationTimeoutBufferSec as number) * 1000,
  });
  const now = T0;
  const proxyFor = sks.proxyForSec as number;
  const req = {
    now,
    desired: input.desiredFromDecider as number,
    settings,
    state: {
      currentReplicas: input.startReplicas as number,
      active: pa.active as "True" | "False" | "Unknown",
      activeSinceMs: now - (pa.sinceSecAgo as number) * 1000,
      scaleTargetInitialized: pa.scaleTargetInitialized === true,
      reachable: pa.reachability !== "Unreachable",
      sksMode: sks.mode as "Serve" | "Proxy",
      proxySinceMs: proxyFor > 0 ? now - proxyFor * 1000 : undefined,
    },
  };
  let step: ScaleStep = applyScale(req);
  if (step.kind === "probeActivator") {
    if (input.activatorProbe === "must not be called") return fail("the activator was probed");
    step = applyScale({ ...req, activatorProbe: input.activatorProbe === "ok" });
  }
  if (step.kind !== "decided") return fail("asked for the activator probe twice");
  const got = {
    returnedScale: step.scale,
    patchesReplicas: step.patchReplicas !== undefined,
    enqueueCallbacks: step.effects.filter((x) => x.kind === "recheckAfter").length,
    asyncProbesStarted: step.effects.filter((x) => x.kind === "startActivatorProbing").length,
  };
  // Only the effects the vector names are compared.
  const d = diff(Object.fromEntries(Object.keys(e).map((k) => [k, (got as Rec)[k]])), e);
  return d ? fail(d) : pass;
}

function check(v: Vector, got: unknown): Outcome {
  const d = diff(got, v.expect);
  return d ? fail(d) : pass;
}

function onlyCapacityChange(v: Vector): Outcome {
  let prev = { desiredScale: -1, excessBurstCapacity: 0 };
  const informed: boolean[] = [];
  for (const t of (v.input as Rec).ticks as Rec[]) {
    const next = { desiredScale: t.desired as number, excessBurstCapacity: t.ebc as number };
    informed.push(shouldPublish(prev, next));
    prev = next;
  }
  return check(v, { informedAfterTick: informed });
}

/** The metric the collector scrapes: the revision's metrics service, or "" when TBC = -1 (e.4). */
function scrapeTarget(v: Vector): Outcome {
  const input = v.input as Rec;
  const config = fromVectorConfig(input.config as Rec);
  const raw = { ...((input.annotations ?? {}) as Record<string, string>) };
  if (typeof input.targetBurstCapacity === "number")
    raw["autoscaling.knative.dev/target-burst-capacity"] = String(input.targetBurstCapacity);
  const parsed = parseAnnotations(raw, config);
  if (parsed.issues.length > 0) return fail(`annotations rejected: ${JSON.stringify(parsed.issues)}`);
  const spec = metricSpecFor(
    config,
    { containerConcurrency: 0, annotations: parsed.value },
    String(input.metricsServiceName),
  );
  return check(v, { scrapeTarget: spec.scrapeTarget });
}

/** A stat for a revision whose last desired scale is given: does the multiscaler run the decider at once? */
function poke(v: Vector): Outcome {
  const input = v.input as Rec;
  const stat = input.stat as LoadStat;
  return check(v, { poked: shouldPoke(input.lastDesiredScale as number, stat) });
}

/** Which annotations `parseAnnotations` refuses (full keys, sorted); the rest must parse. */
function annotationIssues(v: Vector): Outcome {
  const input = v.input as Rec;
  const config = fromVectorConfig(input.config as Rec);
  const r = parseAnnotations(input.annotations as Record<string, string>, config);
  return check(v, { refusedKeys: [...new Set(r.issues.map((i) => i.path))].sort() });
}

/** Which config-autoscaler keys `parseAutoscalerConfig` refuses (sorted). */
function configIssues(v: Vector): Outcome {
  const r = parseAutoscalerConfig((v.input as Rec).data as Rec);
  return check(v, { refusedKeys: r.ok ? [] : [...new Set(r.issues.map((i) => i.path))].sort() });
}

/** Every kind autoscaler-config.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  { name: "config-autoscaler parse", input: ["data"], expect: ["config"], run: newConfig },
  { name: "config-autoscaler refusal", input: ["data"], expect: ["error"], run: newConfig },
  { name: "config-autoscaler refused keys", input: ["data"], expect: ["refusedKeys"], run: configIssues },
  {
    name: "annotation refused keys",
    input: ["annotations"],
    optionalInput: ["config"],
    expect: ["refusedKeys"],
    run: annotationIssues,
  },
  {
    name: "resolve metric target",
    input: ["annotations", "config", "containerConcurrency"],
    expect: ["targetValue", "totalValue"],
    run: metricTarget,
  },
  {
    name: "metric windows",
    input: ["annotations", "config"],
    expect: ["stableWindowSec", "panicWindowSec"],
    run: windows,
  },
  {
    name: "decider spec",
    input: ["annotations", "config", "containerConcurrency"],
    optionalInput: ["reachability"],
    expect: ["spec"],
    run: decider,
  },
  {
    name: "initial scale",
    input: ["annotationInitialScale", "config"],
    expect: ["initialScale"],
    run: initialScale,
  },
  {
    name: "scale apply",
    input: ["config", "desiredFromDecider", "pa", "sks", "startReplicas"],
    optionalInput: ["activatorProbe", "minScaleAnnotation", "maxScaleAnnotation"],
    expect: [],
    optionalExpect: ["returnedScale", "patchesReplicas", "enqueueCallbacks", "asyncProbesStarted"],
    run: scaleApply,
  },
  {
    name: "PA status scales",
    input: ["readyPods", "statusDesiredScale", "want"],
    optionalInput: ["statusActualScale"],
    expect: ["actualScale", "desiredScale"],
    run: (v) => {
      const i = v.input as Rec;
      const prev = i.statusDesiredScale === null ? undefined : (i.statusDesiredScale as number);
      return check(v, podAutoscalerScales(prev, i.readyPods as number, i.want as number));
    },
  },
  {
    name: "same sign",
    input: ["a", "b"],
    expect: ["sameSign"],
    run: (v) => check(v, { sameSign: sameSign(v.input.a as number, v.input.b as number) }),
  },
  {
    name: "new decider initial status",
    input: ["targetBurstCapacity"],
    optionalInput: ["totalValue", "initialScale"],
    expect: ["desiredScale", "excessBurstCapacity"],
    run: (v) =>
      check(
        v,
        initialDeciderStatus({
          targetBurstCapacity: v.input.targetBurstCapacity as number,
          totalValue: (v.input.totalValue as number | undefined) ?? 0,
          initialScale: (v.input.initialScale as number | undefined) ?? 1,
        }),
      ),
  },
  { name: "EBC sign flip", input: ["ticks"], expect: ["informedAfterTick"], run: onlyCapacityChange },
  {
    name: "scrape target",
    input: ["metricsServiceName"],
    optionalInput: ["targetBurstCapacity", "annotations", "config"],
    expect: ["scrapeTarget"],
    run: scrapeTarget,
  },
  { name: "multiscaler poke", input: ["lastDesiredScale", "stat"], expect: ["poked"], run: poke },
];

/** Drives @thaw/autoscaler's config parsing, derivations, status helpers and scale step with autoscaler-config.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
