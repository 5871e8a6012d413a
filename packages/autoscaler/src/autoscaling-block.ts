import { unknownKeyMessages } from "@thaw/command-line";
import type { RevisionAnnotations } from "./annotations.js";
import {
  ANNOTATION_KEYS,
  AUTOSCALING_PREFIX,
  PROGRESS_DEADLINE_ANNOTATION,
  parseAnnotations,
} from "./annotations.js";
import type { AutoscalerConfig } from "./config.js";
import { AUTOSCALER_CONFIG_KEYS, DEFAULT_AUTOSCALER_CONFIG, parseAutoscalerConfig } from "./config.js";
import type { Issue, ParseResult } from "./issues.js";
import { scalarText } from "./scalars.js";

/** A service's autoscaling settings: the config in force for it and its annotation-level overrides. */
export interface ServiceAutoscaling {
  config: AutoscalerConfig;
  annotations: RevisionAnnotations;
  /** The same overrides as Knative annotation strings (full keys), e.g. for a Kubernetes manifest. */
  annotationStrings: Record<string, string>;
}

/** The block's key for Knative's `serving.knative.dev/progress-deadline` (it has no autoscaling prefix). */
export const PROGRESS_DEADLINE_KEY = "progress-deadline";

/**
 * Reads a thaw.config.yaml `autoscaling:` block: Knative's annotation keys without the
 * `autoscaling.knative.dev/` prefix, plus config-autoscaler keys overridden for this service. A key known to
 * both (e.g. `min-scale`) is taken as the annotation, which wins over config in Knative anyway. Values may
 * be YAML strings, numbers or booleans. `progress-deadline` is the revision's
 * `serving.knative.dev/progress-deadline`. Issue paths are `<pathPrefix>.<key>`.
 */
export function parseAutoscalingBlock(
  block: Readonly<Record<string, unknown>>,
  base: Readonly<AutoscalerConfig> = DEFAULT_AUTOSCALER_CONFIG,
  pathPrefix = "autoscaling",
): ParseResult<ServiceAutoscaling> {
  const issues: Issue[] = [];
  const at = (key: string) => (pathPrefix ? `${pathPrefix}.${key}` : key);
  const annotationStrings: Record<string, string> = {};
  const configData: Record<string, unknown> = {};
  const annotationSet = new Set(ANNOTATION_KEYS);
  const configSet = new Set(AUTOSCALER_CONFIG_KEYS);
  const unknown: string[] = [];
  for (const [rawKey, raw] of Object.entries(block)) {
    const key = rawKey.startsWith(AUTOSCALING_PREFIX) ? rawKey.slice(AUTOSCALING_PREFIX.length) : rawKey;
    const text = scalarText(raw);
    if (text === undefined) {
      issues.push({ path: at(rawKey), message: "must be a string, number or boolean" });
    } else if (key === PROGRESS_DEADLINE_KEY) {
      annotationStrings[PROGRESS_DEADLINE_ANNOTATION] = text;
    } else if (annotationSet.has(key)) {
      annotationStrings[AUTOSCALING_PREFIX + key] = text;
    } else if (configSet.has(key)) {
      configData[key] = text;
    } else unknown.push(rawKey);
  }
  const allowed = [
    ...annotationSet,
    PROGRESS_DEADLINE_KEY,
    ...[...configSet].filter((k) => !annotationSet.has(k)),
  ];
  unknownKeyMessages(unknown, allowed, "key").forEach((message, i) => {
    issues.push({ path: at(unknown[i] as string), message });
  });
  const cfg = parseAutoscalerConfig(configData, base);
  if (!cfg.ok) for (const i of cfg.issues) issues.push({ path: at(i.path), message: i.message });
  const config = cfg.ok ? cfg.value : { ...base };
  const ann = parseAnnotations(annotationStrings, config);
  for (const i of ann.issues) {
    const key =
      i.path === PROGRESS_DEADLINE_ANNOTATION
        ? PROGRESS_DEADLINE_KEY
        : i.path.replace(AUTOSCALING_PREFIX, "");
    issues.push({ path: at(key), message: i.message });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { config, annotations: ann.value, annotationStrings } };
}
