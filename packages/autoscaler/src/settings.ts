/**
 * `@thaw/autoscaler/settings`: Knative's config-autoscaler keys, the autoscaling.knative.dev/* rules, the
 * per-revision specs derived from them and the warm schedules, without the decider, windows or simulator.
 * @thaw/config and the service's policy use only these, so `thaw validate` loads about a third of this
 * package's modules (apps/cli/bench/startup.mjs).
 */
export * from "./autoscaling-block.js";
export type { MetricSpec } from "./collection.js";
export * from "./config.js";
export * from "./decider-spec.js";
export * from "./derive.js";
export * from "./scale-settings.js";
export * from "./schedule/schedule.js";
export * from "./schedule/schedule-overlap.js";
