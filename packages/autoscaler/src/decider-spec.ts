/** The metric a revision scales on. */
export type ScalingMetric = "concurrency" | "rps";

/** Everything one decider tick needs to know about its revision (Knative's DeciderSpec, e.2). */
export interface DeciderSpec {
  scalingMetric: ScalingMetric;
  /** Per-pod value the decider aims for: total × utilisation, at least 0.01. */
  targetValue: number;
  /** Per-pod capacity: containerConcurrency, the default, or the target annotation. */
  totalValue: number;
  /** Spare capacity to keep, in requests; 0 = none, −1 = activator always in path. */
  targetBurstCapacity: number;
  /** Ratio of panic-window pods to ready pods that starts panic mode (2 = 200 %). */
  panicThreshold: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  activatorCapacity: number;
  stableWindowMs: number;
  /** Hold scale-downs for this long (0 = off); only read when the decider is built. */
  scaleDownDelayMs: number;
  initialScale: number;
  /** False when the revision receives no traffic (not routed): scale-downs are not limited. */
  reachable: boolean;
  /** Minimum non-zero scale (≤ 1 = off). */
  activationScale: number;
}
