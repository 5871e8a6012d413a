import {
  type AutoscalerConfig,
  DEFAULT_AUTOSCALER_CONFIG,
  parseAutoscalerConfig,
  parseAutoscalingBlock,
} from "@thaw/autoscaler/settings";
import type { ConfigIssue } from "./parse.js";

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * `autoscaler` and `services[i].autoscaling` checked by @thaw/autoscaler's parsers: Knative's key names,
 * ranges and cross-field rules (e.g. min-scale <= max-scale). Reads the raw input leniently, so it can
 * run beside the schema and add its issues to the schema's.
 */
export function autoscalingIssues(input: unknown): ConfigIssue[] {
  if (!isRecord(input)) return [];
  const issues: ConfigIssue[] = [];
  let base: AutoscalerConfig = DEFAULT_AUTOSCALER_CONFIG;
  if (isRecord(input.autoscaler)) {
    const global = parseAutoscalerConfig(input.autoscaler, DEFAULT_AUTOSCALER_CONFIG, {
      rejectUnknownKeys: true,
    });
    if (global.ok) base = global.value;
    else for (const i of global.issues) issues.push({ path: `autoscaler.${i.path}`, message: i.message });
  }
  if (!Array.isArray(input.services)) return issues;
  input.services.forEach((svc, i) => {
    if (!isRecord(svc) || !isRecord(svc.autoscaling)) return;
    const block = parseAutoscalingBlock(svc.autoscaling, base, `services[${i}].autoscaling`);
    if (!block.ok) issues.push(...block.issues);
  });
  return issues;
}
