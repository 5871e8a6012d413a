import { unknownKeyMessages } from "@thaw/command-line";
import { formatGoDuration, parseGoDuration } from "./duration.js";
import type { Issue, ParseResult } from "./issues.js";
import { parseGoBool, parseGoFloat, parseGoInt32, scalarText } from "./scalars.js";

/** Knative's `config-autoscaler` ConfigMap, parsed (e.1). Durations in milliseconds. */
export interface AutoscalerConfig {
  enableScaleToZero: boolean;
  /** `container-concurrency-target-percentage` as a fraction in (0, 1]. */
  containerConcurrencyTargetFraction: number;
  containerConcurrencyTargetDefault: number;
  /** Utilisation for the RPS metric; not configurable by key (Knative's code default). */
  targetUtilization: number;
  rpsTargetDefault: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  targetBurstCapacity: number;
  panicWindowPercentage: number;
  activatorCapacity: number;
  panicThresholdPercentage: number;
  stableWindowMs: number;
  scaleToZeroGracePeriodMs: number;
  scaleToZeroPodRetentionPeriodMs: number;
  scaleDownDelayMs: number;
  podAutoscalerClass: string;
  allowZeroInitialScale: boolean;
  initialScale: number;
  minScale: number;
  maxScale: number;
  maxScaleLimit: number;
}

/** Knative's defaults. */
export const DEFAULT_AUTOSCALER_CONFIG: Readonly<AutoscalerConfig> = Object.freeze({
  enableScaleToZero: true,
  containerConcurrencyTargetFraction: 0.7,
  containerConcurrencyTargetDefault: 100,
  targetUtilization: 0.7,
  rpsTargetDefault: 200,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  targetBurstCapacity: 211,
  panicWindowPercentage: 10,
  activatorCapacity: 100,
  panicThresholdPercentage: 200,
  stableWindowMs: 60_000,
  scaleToZeroGracePeriodMs: 30_000,
  scaleToZeroPodRetentionPeriodMs: 0,
  scaleDownDelayMs: 0,
  podAutoscalerClass: "kpa.autoscaling.knative.dev",
  allowZeroInitialScale: false,
  initialScale: 1,
  minScale: 0,
  maxScale: 0,
  maxScaleLimit: 0,
});

/** Smallest per-pod target Knative accepts. */
export const TARGET_MIN = 0.01;
/** Shortest stable window. */
export const WINDOW_MIN_MS = 6000;
/** Longest stable window (also the cap on scale-down delay and pod retention annotations). */
export const WINDOW_MAX_MS = 3_600_000;
/** Bucket size: the shortest panic window. */
export const BUCKET_SIZE_MS = 1000;

type Kind = "float" | "int" | "duration" | "bool" | "string";
const KEYS: Record<string, [keyof AutoscalerConfig, Kind]> = {
  "enable-scale-to-zero": ["enableScaleToZero", "bool"],
  "container-concurrency-target-percentage": ["containerConcurrencyTargetFraction", "float"],
  "container-concurrency-target-default": ["containerConcurrencyTargetDefault", "float"],
  "requests-per-second-target-default": ["rpsTargetDefault", "float"],
  "max-scale-up-rate": ["maxScaleUpRate", "float"],
  "max-scale-down-rate": ["maxScaleDownRate", "float"],
  "target-burst-capacity": ["targetBurstCapacity", "float"],
  "panic-window-percentage": ["panicWindowPercentage", "float"],
  "activator-capacity": ["activatorCapacity", "float"],
  "panic-threshold-percentage": ["panicThresholdPercentage", "float"],
  "stable-window": ["stableWindowMs", "duration"],
  "scale-to-zero-grace-period": ["scaleToZeroGracePeriodMs", "duration"],
  "scale-to-zero-pod-retention-period": ["scaleToZeroPodRetentionPeriodMs", "duration"],
  "scale-down-delay": ["scaleDownDelayMs", "duration"],
  "pod-autoscaler-class": ["podAutoscalerClass", "string"],
  "allow-zero-initial-scale": ["allowZeroInitialScale", "bool"],
  "initial-scale": ["initialScale", "int"],
  "min-scale": ["minScale", "int"],
  "max-scale": ["maxScale", "int"],
  "max-scale-limit": ["maxScaleLimit", "int"],
};

/** The `config-autoscaler` keys this parser reads. */
export const AUTOSCALER_CONFIG_KEYS: readonly string[] = Object.keys(KEYS);

const KIND_HINT: Record<Kind, string> = {
  float: "a number such as 70 or 0.7 (Go's strconv.ParseFloat)",
  int: "a 32-bit whole number such as 3 (Go's strconv.ParseInt)",
  duration: "a Go duration such as 60s or 1m30s (units ns, us, ms, s, m, h)",
  bool: "one of true, false, 1, 0, t, f, T, F, TRUE, FALSE, True, False (Go's strconv.ParseBool)",
  string: "text",
};

/**
 * Parses `config-autoscaler` data (ConfigMap strings; numbers and booleans from YAML are accepted too) over
 * `base` (Knative's defaults unless given), then validates the result. Each value is read by the Go parser
 * Knative uses for its key (ParseBool, ParseFloat, ParseInt 32-bit, ParseDuration), so a value Knative
 * refuses is an issue naming the key; nothing throws. Unknown keys are ignored, as in Knative, unless
 * `rejectUnknownKeys` is set.
 */
export function parseAutoscalerConfig(
  data: Readonly<Record<string, unknown>>,
  base: Readonly<AutoscalerConfig> = DEFAULT_AUTOSCALER_CONFIG,
  options: { rejectUnknownKeys?: boolean } = {},
): ParseResult<AutoscalerConfig> {
  const cfg: AutoscalerConfig = { ...base };
  const issues: Issue[] = [];
  if (options.rejectUnknownKeys) {
    // For hand-written files (thaw.config.yaml) a typo should not silently fall back to a default.
    const unknown = Object.keys(data).filter((key) => !(key in KEYS));
    unknownKeyMessages(unknown, AUTOSCALER_CONFIG_KEYS, "key").forEach((message, i) => {
      issues.push({ path: unknown[i] as string, message });
    });
  }
  const set = cfg as unknown as Record<string, unknown>;
  for (const [key, [field, kind]] of Object.entries(KEYS)) {
    if (!(key in data)) continue;
    const text = scalarText(data[key]);
    const value = text === undefined ? undefined : convert(kind, text);
    if (value === undefined) {
      issues.push({ path: key, message: `${show(data[key])} is not ${KIND_HINT[kind]}` });
      continue;
    }
    set[field] = value;
  }
  if ("container-concurrency-target-percentage" in data) {
    // Legacy: values above 1 are percentages; internally it is a fraction.
    if (cfg.containerConcurrencyTargetFraction > 1) cfg.containerConcurrencyTargetFraction /= 100;
  }
  if (issues.length > 0) return { ok: false, issues };
  const invalid = validateAutoscalerConfig(cfg);
  return invalid.length > 0 ? { ok: false, issues: invalid } : { ok: true, value: cfg };
}

function convert(kind: Kind, text: string): unknown {
  switch (kind) {
    case "float":
      return parseGoFloat(text);
    case "int":
      return parseGoInt32(text);
    case "duration":
      return parseGoDuration(text);
    case "bool":
      // knative/pkg's configmap.AsBool returns strconv.ParseBool's error: "invalid" refuses the ConfigMap.
      return parseGoBool(text);
    case "string":
      return text;
  }
}

function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  // Objects may lack a prototype (and so a toString): name their kind instead of printing them.
  return v !== null && (typeof v === "object" || typeof v === "function") ? `an ${typeof v}` : String(v);
}

/** Knative's cross-field checks on a parsed config; each issue names the key and the allowed range. */
export function validateAutoscalerConfig(c: Readonly<AutoscalerConfig>): Issue[] {
  const out: Issue[] = [];
  const bad = (path: string, message: string) => out.push({ path, message });
  if (c.scaleToZeroGracePeriodMs <= 0) {
    bad(
      "scale-to-zero-grace-period",
      `must be positive, was ${formatGoDuration(c.scaleToZeroGracePeriodMs)}`,
    );
  }
  if (c.scaleDownDelayMs < 0)
    bad("scale-down-delay", `must be ≥ 0s, was ${formatGoDuration(c.scaleDownDelayMs)}`);
  else if (c.scaleDownDelayMs % 1000 !== 0) bad("scale-down-delay", "must be a whole number of seconds");
  if (c.scaleToZeroPodRetentionPeriodMs < 0) {
    bad(
      "scale-to-zero-pod-retention-period",
      `must be ≥ 0s, was ${formatGoDuration(c.scaleToZeroPodRetentionPeriodMs)}`,
    );
  }
  if (c.targetBurstCapacity < 0 && c.targetBurstCapacity !== -1) {
    bad("target-burst-capacity", `must be ≥ 0 or exactly -1, was ${c.targetBurstCapacity}`);
  }
  // The comparisons keep Go's form: ParseFloat accepts NaN, and Go's `x <= 1` lets NaN through.
  const f = c.containerConcurrencyTargetFraction;
  if (f <= 0 || f > 1) {
    bad("container-concurrency-target-percentage", `must be in (0, 100], was ${f * 100}`);
  } else if (f * c.containerConcurrencyTargetDefault < TARGET_MIN) {
    bad(
      "container-concurrency-target-default",
      `target percentage × default must be ≥ ${TARGET_MIN}, was ${f * c.containerConcurrencyTargetDefault}`,
    );
  }
  if (c.rpsTargetDefault < TARGET_MIN) {
    bad("requests-per-second-target-default", `must be ≥ ${TARGET_MIN}, was ${c.rpsTargetDefault}`);
  }
  if (c.maxScaleUpRate <= 1) bad("max-scale-up-rate", `must be > 1, was ${c.maxScaleUpRate}`);
  if (c.maxScaleDownRate <= 1) bad("max-scale-down-rate", `must be > 1, was ${c.maxScaleDownRate}`);
  const sw = c.stableWindowMs;
  if (sw < WINDOW_MIN_MS || sw > WINDOW_MAX_MS) {
    bad("stable-window", `must be in [6s, 1h], was ${formatGoDuration(sw)}`);
  } else if (sw % 1000 !== 0) {
    bad("stable-window", "must be a whole number of seconds");
  }
  // The panic window is floored at one bucket when derived, so only the percentage's range is checked.
  const pwp = c.panicWindowPercentage;
  if (pwp < 1 || pwp > 100) bad("panic-window-percentage", `must be in [1, 100], was ${pwp}`);
  if (c.initialScale < 0 || (c.initialScale === 0 && !c.allowZeroInitialScale)) {
    const lo = c.allowZeroInitialScale ? 0 : 1;
    bad("initial-scale", `must be ≥ ${lo} (0 needs allow-zero-initial-scale: true), was ${c.initialScale}`);
  }
  if (c.maxScaleLimit < 0) bad("max-scale-limit", `must be ≥ 0, was ${c.maxScaleLimit}`);
  const minMax = c.maxScaleLimit > 0 ? 1 : 0;
  if (c.maxScale < minMax || (c.maxScaleLimit > 0 && c.maxScale > c.maxScaleLimit)) {
    const range = c.maxScaleLimit > 0 ? `[1, ${c.maxScaleLimit}] (max-scale-limit)` : "≥ 0";
    bad("max-scale", `must be ${range}, was ${c.maxScale}`);
  }
  if (c.minScale < 0) bad("min-scale", `must be ≥ 0, was ${c.minScale}`);
  else if (c.maxScale > 0 && c.minScale > c.maxScale) {
    bad("min-scale", `must be ≤ max-scale (${c.maxScale}), was ${c.minScale}`);
  }
  if (c.activatorCapacity < 1) bad("activator-capacity", `must be ≥ 1, was ${c.activatorCapacity}`);
  return out;
}
