import {
  type AutoscalerConfig,
  applyScale,
  DEFAULT_AUTOSCALER_CONFIG,
  deciderSpecFor,
  initialDeciderStatus,
  initialScaleFor,
  metricWindows,
  parseAnnotations,
  parseAutoscalerConfig,
  podAutoscalerScales,
  resolveMetricTarget,
  type ScaleStep,
  sameSign,
  scaleSettingsFor,
  shouldPublish,
} from "@thaw/autoscaler";
import { diff, near } from "../compare.js";
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
  const d = diff(got, e);
  return d ? fail(d) : pass;
}

function misc(v: Vector, test: string): Outcome | undefined {
  const input = v.input as Rec;
  const e = v.expect as Rec;
  const check = (got: unknown): Outcome => {
    const d = diff(got, e);
    return d ? fail(d) : pass;
  };
  switch (test) {
    case "TestComputeStatus": {
      const prev = input.statusDesiredScale === null ? undefined : (input.statusDesiredScale as number);
      return check(podAutoscalerScales(prev, input.readyPods as number, input.want as number));
    }
    case "TestSameSign":
      return check({ sameSign: sameSign(input.a as number, input.b as number) });
    case "TestMultiscalerCreateTBC42":
    case "TestMultiscalerCreateTBCMinus1":
      return check(
        initialDeciderStatus({
          targetBurstCapacity: input.targetBurstCapacity as number,
          totalValue: (input.totalValue as number | undefined) ?? 0,
          initialScale: (input.initialScale as number | undefined) ?? 1,
        }),
      );
    case "TestMultiScalerOnlyCapacityChange": {
      let prev = { desiredScale: -1, excessBurstCapacity: 0 };
      const informed: boolean[] = [];
      for (const t of input.ticks as Rec[]) {
        const next = { desiredScale: t.desired as number, excessBurstCapacity: t.ebc as number };
        informed.push(shouldPublish(prev, next));
        prev = next;
      }
      return check({ informedAfterTick: informed });
    }
  }
  return undefined;
}

/** Drives @thaw/autoscaler's config parsing, derivations, status helpers and scale step with autoscaler-config.json. */
export const adapter: Adapter = {
  run(v: Vector): Outcome {
    const test = v.source.split("#")[1]?.split("/")[0] ?? "";
    switch (test) {
      case "TestNewConfig":
        return newConfig(v);
      case "TestResolveMetricTarget":
        return metricTarget(v);
      case "TestMakeMetric":
        return windows(v);
      case "TestMakeDecider":
        return decider(v);
      case "TestGetInitialScale":
        return initialScale(v);
      case "TestScaler":
        return scaleApply(v);
    }
    return misc(v, test) ?? fail(`unknown vector kind: ${v.source}`);
  },
};
