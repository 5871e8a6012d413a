import type { RevisionAnnotations } from "./annotations.js";
import type { AutoscalerConfig } from "./config.js";
import { initialScaleFor, metricWindows, targetBurstCapacityFor } from "./derive.js";

/** Per-revision numbers the scale application step reads (e.6), resolved from annotations over config. */
export interface ScaleSettings {
  minScale: number;
  /** 0 = unbounded. */
  maxScale: number;
  initialScale: number;
  enableScaleToZero: boolean;
  stableWindowMs: number;
  scaleToZeroGracePeriodMs: number;
  scaleToZeroPodRetentionPeriodMs: number;
  targetBurstCapacity: number;
  /** How long activation may take before the revision is given up on: progress deadline + buffer. */
  activationTimeoutMs: number;
}

/** Kubernetes' default progress deadline as Knative's config-deployment sets it. */
export const DEFAULT_PROGRESS_DEADLINE_MS = 600_000;
/** Extra time Knative allows on top of the progress deadline before failing an activation. */
export const ACTIVATION_TIMEOUT_BUFFER_MS = 30_000;

/** Resolves the scale settings of a revision. */
export function scaleSettingsFor(
  config: AutoscalerConfig,
  annotations: RevisionAnnotations,
  options: { progressDeadlineMs?: number; activationTimeoutBufferMs?: number } = {},
): ScaleSettings {
  const deadline =
    annotations.progressDeadlineMs ?? options.progressDeadlineMs ?? DEFAULT_PROGRESS_DEADLINE_MS;
  return {
    minScale: annotations.minScale ?? config.minScale,
    maxScale: annotations.maxScale ?? config.maxScale,
    initialScale: initialScaleFor(config, annotations),
    enableScaleToZero: config.enableScaleToZero,
    stableWindowMs: metricWindows(config, annotations).stableWindowMs,
    scaleToZeroGracePeriodMs: config.scaleToZeroGracePeriodMs,
    scaleToZeroPodRetentionPeriodMs:
      annotations.scaleToZeroPodRetentionPeriodMs ?? config.scaleToZeroPodRetentionPeriodMs,
    targetBurstCapacity: targetBurstCapacityFor(config, annotations),
    activationTimeoutMs: deadline + (options.activationTimeoutBufferMs ?? ACTIVATION_TIMEOUT_BUFFER_MS),
  };
}
