import type { AutoscalerConfig } from "./config.js";
import { TARGET_MIN, WINDOW_MAX_MS, WINDOW_MIN_MS } from "./config.js";
import { parseGoDuration } from "./duration.js";
import type { Issue } from "./issues.js";
import { parseGoFloat, parseGoInt32, parseGoInt64 } from "./scalars.js";

/** Knative's per-revision annotation prefix. */
export const AUTOSCALING_PREFIX = "autoscaling.knative.dev/";
/** The revision's progress deadline annotation (bounds how long activation may take). */
export const PROGRESS_DEADLINE_ANNOTATION = "serving.knative.dev/progress-deadline";

/** Per-revision settings read from `autoscaling.knative.dev/*` annotations; absent = use the config. */
export interface RevisionAnnotations {
  class?: string;
  metric?: "concurrency" | "rps";
  target?: number;
  targetUtilizationPercentage?: number;
  targetBurstCapacity?: number;
  windowMs?: number;
  panicWindowPercentage?: number;
  panicThresholdPercentage?: number;
  minScale?: number;
  maxScale?: number;
  initialScale?: number;
  activationScale?: number;
  scaleDownDelayMs?: number;
  scaleToZeroPodRetentionPeriodMs?: number;
  metricAggregationAlgorithm?: "linear" | "weighted";
  /** From `serving.knative.dev/progress-deadline`. */
  progressDeadlineMs?: number;
}

/** The annotation keys (without prefix) this parser reads, each with its legacy camelCase spelling if any. */
export const ANNOTATION_KEYS: readonly string[] = [
  "class",
  "metric",
  "target",
  "target-utilization-percentage",
  "target-burst-capacity",
  "window",
  "panic-window-percentage",
  "panic-threshold-percentage",
  "min-scale",
  "max-scale",
  "initial-scale",
  "activation-scale",
  "scale-down-delay",
  "scale-to-zero-pod-retention-period",
  "metric-aggregation-algorithm",
];

/**
 * A value in a message as its writer sees it: a number bare (`0`, `-1`, `1.5`: YAML or JSON numbers come
 * here as strings), anything else quoted, so `max-scale: abc` and `max-scale: ""` stay visible.
 */
function shown(value: string): string {
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value) ? value : JSON.stringify(value);
}

function camel(key: string): string {
  return key.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Result of reading annotations: the values that parsed, and issues for the ones that did not. */
export interface AnnotationParse {
  value: RevisionAnnotations;
  issues: Issue[];
}

/**
 * Reads and validates a revision's annotations against `config` (for the limits that depend on it).
 * Values that fail validation are left out of `value` and reported in `issues`, so derivations can still
 * fall back to the config as Knative's accessors do.
 */
export function parseAnnotations(
  annotations: Readonly<Record<string, string>>,
  config?: Readonly<Pick<AutoscalerConfig, "allowZeroInitialScale" | "maxScaleLimit">>,
): AnnotationParse {
  const value: RevisionAnnotations = {};
  const issues: Issue[] = [];
  const get = (key: string): [string, string] | undefined => {
    for (const k of [key, camel(key)]) {
      const full = AUTOSCALING_PREFIX + k;
      const v = annotations[full];
      if (v !== undefined) return [full, v];
    }
    return undefined;
  };
  // `int`: the Go integer parser Knative uses for the key (ParseInt 32-bit, or Atoi's 64 bits).
  const num = (key: string, lo: number, hi: number, range: string, int?: 32 | 64): number | undefined => {
    const e = get(key);
    if (!e) return undefined;
    const n = int === 64 ? parseGoInt64(e[1]) : int ? parseGoInt32(e[1]) : parseGoFloat(e[1]);
    if (n === undefined) {
      const what = int
        ? `a ${int}-bit whole number (Go's ${int === 64 ? "strconv.Atoi" : "strconv.ParseInt"})`
        : "a number (Go's strconv.ParseFloat)";
      issues.push({ path: e[0], message: `${shown(e[1])} is not ${what}; it must be ${range}` });
      return undefined;
    }
    if (n < lo || n > hi) {
      issues.push({ path: e[0], message: `${shown(e[1])} must be ${range}` });
      return undefined;
    }
    return n;
  };
  const dur = (
    key: string,
    lo: number,
    hi: number,
    range: string,
    wholeSeconds: boolean,
  ): number | undefined => {
    const e = get(key);
    if (!e) return undefined;
    const ms = parseGoDuration(e[1]);
    if (ms === undefined || ms < lo || ms > hi || (wholeSeconds && ms % 1000 !== 0)) {
      issues.push({
        path: e[0],
        message: `${shown(e[1])} must be a Go duration in ${range}${wholeSeconds ? ", whole seconds" : ""}`,
      });
      return undefined;
    }
    return ms;
  };

  const cls = get("class");
  if (cls) {
    // Classes in Knative's own domain must be one it knows; other domains belong to other autoscalers.
    const c = cls[1];
    if (
      c.endsWith("autoscaling.knative.dev") &&
      c !== "kpa.autoscaling.knative.dev" &&
      c !== "hpa.autoscaling.knative.dev"
    ) {
      issues.push({
        path: cls[0],
        message: `${shown(c)} must be kpa.autoscaling.knative.dev or hpa.autoscaling.knative.dev`,
      });
    } else value.class = c;
  }
  // Knative checks the metric only for its own classes: KPA (also when no class is given) takes
  // concurrency or rps, HPA any non-empty metric, other autoscalers' classes anything.
  const klass = cls?.[1] ?? "kpa.autoscaling.knative.dev";
  const metric = get("metric");
  if (metric) {
    const m = metric[1];
    if (m === "concurrency" || m === "rps") value.metric = m;
    else if (
      klass === "kpa.autoscaling.knative.dev" ||
      (klass === "hpa.autoscaling.knative.dev" && m === "")
    ) {
      const want = klass === "hpa.autoscaling.knative.dev" ? "a metric name" : "concurrency or rps";
      issues.push({ path: metric[0], message: `${shown(m)} must be ${want}` });
    }
  }
  const set = <K extends keyof RevisionAnnotations>(k: K, v: RevisionAnnotations[K] | undefined) => {
    if (v !== undefined) value[k] = v;
  };
  set("target", num("target", TARGET_MIN, Number.POSITIVE_INFINITY, `≥ ${TARGET_MIN}`));
  set("targetUtilizationPercentage", num("target-utilization-percentage", 1, 100, "in [1, 100]"));
  const tbc = get("target-burst-capacity");
  if (tbc) {
    const n = parseGoFloat(tbc[1]);
    if (n === undefined || (n < 0 && n !== -1)) {
      issues.push({ path: tbc[0], message: `${shown(tbc[1])} must be ≥ 0 or exactly -1` });
    } else value.targetBurstCapacity = n;
  }
  set("windowMs", dur("window", WINDOW_MIN_MS, WINDOW_MAX_MS, "[6s, 1h]", true));
  set("panicWindowPercentage", num("panic-window-percentage", 1, 100, "in [1, 100]"));
  set("panicThresholdPercentage", num("panic-threshold-percentage", 110, 1000, "in [110, 1000]"));
  const intMax = 2147483647;
  set("minScale", num("min-scale", 0, intMax, "a whole number ≥ 0", 32));
  const limit = config?.maxScaleLimit ?? 0;
  set(
    "maxScale",
    limit > 0
      ? num("max-scale", 1, limit, `a whole number in [1, ${limit}] (max-scale-limit)`, 32)
      : num("max-scale", 0, intMax, "a whole number ≥ 0", 32),
  );
  const zeroOk = config?.allowZeroInitialScale ?? false;
  set(
    "initialScale",
    num(
      "initial-scale",
      zeroOk ? 0 : 1,
      Number.POSITIVE_INFINITY,
      zeroOk ? "a whole number ≥ 0" : "a whole number ≥ 1 (0 needs allow-zero-initial-scale)",
      64,
    ),
  );
  set("activationScale", num("activation-scale", 1, intMax, "a whole number ≥ 1", 32));
  set("scaleDownDelayMs", dur("scale-down-delay", 0, WINDOW_MAX_MS, "[0s, 1h]", true));
  set(
    "scaleToZeroPodRetentionPeriodMs",
    dur("scale-to-zero-pod-retention-period", 0, WINDOW_MAX_MS, "[0s, 1h]", false),
  );
  // Knative validates the algorithm only when the class annotation says KPA; otherwise an unknown value is
  // left alone and the windows stay linear.
  const agg = get("metric-aggregation-algorithm");
  if (agg && agg[1] !== "") {
    const a = agg[1];
    if (a === "linear") value.metricAggregationAlgorithm = "linear";
    else if (a === "weighted-exponential" || a === "weightedExponential") {
      value.metricAggregationAlgorithm = "weighted";
    } else if (cls?.[1] === "kpa.autoscaling.knative.dev") {
      issues.push({ path: agg[0], message: `${shown(a)} must be linear or weighted-exponential` });
    }
  }
  const pd = annotations[PROGRESS_DEADLINE_ANNOTATION];
  if (pd !== undefined) {
    const ms = parseGoDuration(pd);
    if (ms === undefined || ms <= 0) {
      issues.push({
        path: PROGRESS_DEADLINE_ANNOTATION,
        message: `${shown(pd)} must be a positive Go duration`,
      });
    } else value.progressDeadlineMs = ms;
  }

  // Cross-field rules.
  if (value.minScale !== undefined && value.maxScale !== undefined && value.maxScale > 0) {
    if (value.minScale > value.maxScale) {
      issues.push({
        path: `${AUTOSCALING_PREFIX}min-scale`,
        message: `${value.minScale} must be ≤ max-scale (${value.maxScale})`,
      });
    }
  }
  if (value.activationScale !== undefined && value.maxScale !== undefined && value.maxScale > 0) {
    if (value.activationScale > value.maxScale) {
      issues.push({
        path: `${AUTOSCALING_PREFIX}activation-scale`,
        message: `${value.activationScale} must be ≤ max-scale (${value.maxScale})`,
      });
    }
  }
  return { value, issues };
}
