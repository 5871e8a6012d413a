import {
  type AutoscalerConfig,
  DEFAULT_AUTOSCALER_CONFIG,
  type DeciderSpec,
  deciderSpecFor,
  type MetricSpec,
  metricSpecFor,
  parseAutoscalerConfig,
  parseAutoscalingBlock,
  parseSchedules,
  type ScaleSettings,
  type ScheduleWindow,
  scaleSettingsFor,
} from "@thaw/autoscaler/settings";

/** Everything the service needs to scale one revision, resolved from config-autoscaler keys and annotations. */
export interface RevisionPolicy {
  decider: DeciderSpec;
  metric: MetricSpec;
  settings: ScaleSettings;
  /** Time windows with their own min-scale (`services[i].schedules`). */
  schedules: ScheduleWindow[];
}

/** A problem with a field path, as @thaw/config reports them. */
export interface PolicyIssue {
  path: string;
  message: string;
}

/** Input of {@link policyFor}: a service's knobs as thaw.config.yaml or a Deployment's annotations give them. */
export interface PolicyInput {
  /** `autoscaler:` block: config-autoscaler keys for every service. */
  global?: Readonly<Record<string, unknown>>;
  /** The service's `autoscaling:` block (annotation keys without prefix, or config keys). */
  autoscaling?: Readonly<Record<string, unknown>>;
  containerConcurrency: number;
  /** Field path prefixes for issues. */
  globalPath?: string;
  autoscalingPath?: string;
  /** The service's `schedules` list, as written. */
  schedules?: unknown;
  schedulesPath?: string;
}

/** The string the collector stores as "there is something to scrape" (pods are scraped directly). */
const SCRAPE_PODS = "pods";

/**
 * Resolves a revision's decider spec, metric spec and scale settings with @thaw/autoscaler's own parsers,
 * so `thaw validate`, `thaw up` and `thaw-autoscaler` all read the same keys the same way.
 */
export function policyFor(
  input: PolicyInput,
): { ok: true; value: RevisionPolicy } | { ok: false; issues: PolicyIssue[] } {
  const issues: PolicyIssue[] = [];
  const globalPath = input.globalPath ?? "autoscaler";
  const base = parseAutoscalerConfig(input.global ?? {}, DEFAULT_AUTOSCALER_CONFIG);
  if (!base.ok)
    for (const i of base.issues) issues.push({ path: `${globalPath}.${i.path}`, message: i.message });
  const config: AutoscalerConfig = base.ok ? base.value : { ...DEFAULT_AUTOSCALER_CONFIG };
  const block = parseAutoscalingBlock(
    input.autoscaling ?? {},
    config,
    input.autoscalingPath ?? "autoscaling",
  );
  if (!block.ok) issues.push(...block.issues);
  if (issues.length > 0 || !block.ok) return { ok: false, issues };
  const settings = scaleSettingsFor(block.value.config, block.value.annotations);
  const schedules = parseSchedules(input.schedules, input.schedulesPath ?? "schedules", settings.maxScale);
  if (!schedules.ok) return { ok: false, issues: schedules.issues };
  const facts = { containerConcurrency: input.containerConcurrency, annotations: block.value.annotations };
  return {
    ok: true,
    value: {
      decider: deciderSpecFor(block.value.config, facts),
      metric: metricSpecFor(block.value.config, facts, SCRAPE_PODS),
      settings,
      schedules: schedules.value,
    },
  };
}
