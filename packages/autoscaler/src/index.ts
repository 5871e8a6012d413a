/**
 * @thaw/autoscaler: Knative's KPA as pure functions and small classes (knative-spec.md section e, d.4):
 * bucketed windows, metric collection, the decider, config and annotation parsing, scale application,
 * and an offline simulator. Every time is milliseconds since the Unix epoch, passed in as `now`.
 */
export * from "./activator-count.js";
export * from "./annotations.js";
export * from "./autoscaling-block.js";
export * from "./collection.js";
export * from "./collector.js";
export * from "./config.js";
export * from "./decider.js";
export * from "./decider-spec.js";
export * from "./decider-status.js";
export * from "./derive.js";
export * from "./duration.js";
export type * from "./issues.js";
export * from "./linear-window.js";
export * from "./load-stat.js";
export * from "./max-window.js";
export * from "./round.js";
export * from "./sample-size.js";
export * from "./scale-apply.js";
export * from "./scale-settings.js";
export * from "./schedule/cron.js";
export * from "./schedule/cron-search.js";
export * from "./schedule/schedule.js";
export * from "./schedule/schedule-overlap.js";
export * from "./schedule/warm-floor.js";
export * from "./schedule/zoned-time.js";
export * from "./scrape-sample.js";
export * from "./simulator/options.js";
export * from "./simulator/report.js";
export * from "./simulator/simulate.js";
export * from "./simulator/svg.js";
export * from "./simulator/trace.js";
export * from "./timed-buckets.js";
export * from "./weighted-window.js";
