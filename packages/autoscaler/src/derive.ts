import type { RevisionAnnotations } from "./annotations.js";
import type { MetricSpec } from "./collection.js";
import type { AutoscalerConfig } from "./config.js";
import { BUCKET_SIZE_MS, TARGET_MIN } from "./config.js";
import type { DeciderSpec, ScalingMetric } from "./decider-spec.js";

/** What a revision brings besides its annotations. */
export interface RevisionFacts {
  /** The revision's containerConcurrency; 0 = unlimited. */
  containerConcurrency: number;
  annotations: RevisionAnnotations;
  /** PodAutoscaler reachability; anything but "Unreachable" counts as reachable. */
  reachability?: "Reachable" | "Unreachable" | "Unknown" | "";
}

/** The metric a revision scales on (concurrency unless annotated). */
export function scalingMetricOf(a: RevisionAnnotations): ScalingMetric {
  return a.metric ?? "concurrency";
}

/** Per-pod target and total capacity for the revision's metric (e.2). */
export function resolveMetricTarget(
  config: Pick<
    AutoscalerConfig,
    | "containerConcurrencyTargetFraction"
    | "containerConcurrencyTargetDefault"
    | "rpsTargetDefault"
    | "targetUtilization"
  >,
  facts: Pick<RevisionFacts, "containerConcurrency" | "annotations">,
): { targetValue: number; totalValue: number } {
  const a = facts.annotations;
  const metric = scalingMetricOf(a);
  let total: number;
  let tu: number;
  if (metric === "rps") {
    total = config.rpsTargetDefault;
    tu = config.targetUtilization;
  } else {
    total =
      facts.containerConcurrency === 0
        ? config.containerConcurrencyTargetDefault
        : facts.containerConcurrency;
    tu = config.containerConcurrencyTargetFraction;
  }
  if (a.target !== undefined) {
    total = a.target;
    // A target above containerConcurrency could never be reached; cap it for safety.
    if (metric === "concurrency" && facts.containerConcurrency !== 0) {
      total = Math.min(a.target, facts.containerConcurrency);
    }
  }
  if (a.targetUtilizationPercentage !== undefined) tu = a.targetUtilizationPercentage / 100;
  return { targetValue: Math.max(TARGET_MIN, total * tu), totalValue: total };
}

/** Go's Duration.Round(time.Second): to the nearest second, halves away from zero. */
function roundToSecond(ms: number): number {
  return Math.sign(ms) * Math.round(Math.abs(ms) / 1000) * 1000;
}

/** Stable and panic window lengths (ms) for a revision. */
export function metricWindows(
  config: Pick<AutoscalerConfig, "stableWindowMs" | "panicWindowPercentage">,
  a: RevisionAnnotations,
): { stableWindowMs: number; panicWindowMs: number } {
  const stable = a.windowMs ?? config.stableWindowMs;
  const pct = a.panicWindowPercentage ?? config.panicWindowPercentage;
  const panic = Math.max(BUCKET_SIZE_MS, roundToSecond((stable * pct) / 100));
  return { stableWindowMs: stable, panicWindowMs: panic };
}

/** Initial scale: the annotation, unless absent or a disallowed 0, else the config's. */
export function initialScaleFor(
  config: Pick<AutoscalerConfig, "initialScale" | "allowZeroInitialScale">,
  a: Pick<RevisionAnnotations, "initialScale">,
): number {
  const v = a.initialScale;
  if (v === undefined || (v === 0 && !config.allowZeroInitialScale)) return config.initialScale;
  return v;
}

/** Target burst capacity: annotation, else config. */
export function targetBurstCapacityFor(
  config: Pick<AutoscalerConfig, "targetBurstCapacity">,
  a: RevisionAnnotations,
): number {
  return a.targetBurstCapacity ?? config.targetBurstCapacity;
}

/** The decider inputs for a revision (e.2). */
export function deciderSpecFor(config: AutoscalerConfig, facts: RevisionFacts): DeciderSpec {
  const a = facts.annotations;
  const { targetValue, totalValue } = resolveMetricTarget(config, facts);
  return {
    scalingMetric: scalingMetricOf(a),
    targetValue,
    totalValue,
    targetBurstCapacity: targetBurstCapacityFor(config, a),
    panicThreshold: (a.panicThresholdPercentage ?? config.panicThresholdPercentage) / 100,
    maxScaleUpRate: config.maxScaleUpRate,
    maxScaleDownRate: config.maxScaleDownRate,
    activatorCapacity: config.activatorCapacity,
    stableWindowMs: metricWindows(config, a).stableWindowMs,
    scaleDownDelayMs: a.scaleDownDelayMs ?? config.scaleDownDelayMs,
    initialScale: initialScaleFor(config, a),
    reachable: facts.reachability !== "Unreachable",
    activationScale: a.activationScale ?? 0,
  };
}

/**
 * The collector spec for a revision. `scrapeTarget` is the metrics service to scrape; Knative leaves it
 * empty when TBC = −1 (the activator always sees all traffic), which also turns "no data" into zeros.
 */
export function metricSpecFor(
  config: AutoscalerConfig,
  facts: RevisionFacts,
  scrapeTarget: string,
): MetricSpec {
  const a = facts.annotations;
  const w = metricWindows(config, a);
  return {
    ...w,
    scrapeTarget: targetBurstCapacityFor(config, a) === -1 ? "" : scrapeTarget,
    aggregation: a.metricAggregationAlgorithm ?? "linear",
  };
}
