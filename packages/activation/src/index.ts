/**
 * @thaw/activation: the activation logic shared by the queue-proxy, the activator and the ingress hook
 * (knative-spec.md c.3, c.5, d.2-d.5): breakers, request statistics, the throttler with its
 * load-balancing policies, backend probing and single-flight activation. Portable: time, randomness and
 * fetch are parameters.
 */
export * from "./after-delivered-io.js";
export * from "./answer.js";
export * from "./backend-prober.js";
export * from "./body-budget.js";
export * from "./breaker.js";
export * from "./capacity.js";
export * from "./cold-start-estimate.js";
export * from "./concurrency-reporter.js";
export * from "./deadline-signal.js";
export * from "./errors.js";
export * from "./gate.js";
export * from "./gated-handler.js";
export * from "./infinite-breaker.js";
export * from "./lb-policy.js";
export * from "./pod-tracker.js";
export * from "./probe.js";
export * from "./release-at-body-end.js";
export * from "./request-stats.js";
export * from "./request-timeout.js";
export * from "./revision-throttler.js";
export { RESOLVED, Semaphore } from "./semaphore.js";
export * from "./single-flight.js";
export * from "./stat-reporter.js";
export * from "./throttler.js";
export * from "./unlimited-gate.js";
export { Waiter, WaiterQueue } from "./waiter-queue.js";
