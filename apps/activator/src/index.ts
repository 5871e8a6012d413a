/**
 * @thaw/activator: the portable activator app (Hono) and its ports. Runtime entries: `./node` (server,
 * `thaw-activator` bin) and the Worker in src/worker.ts.
 */

export { retryAfterSeconds } from "@thaw/activation";
export { type ActivateAnswer, activateAnswer } from "./api/activate.js";
export { type ActivatorApp, createActivatorApp } from "./app.js";
export { NO_BODY, type PreparedBody, prepareBody } from "./body.js";
export { EdgeScaling, type EdgeTick } from "./edge-scaling.js";
export { createFetchForwarder } from "./fetch-forwarder.js";
export { LocalCoordinator, type LocalCoordinatorOptions } from "./local-coordinator.js";
export { applyPodProblem, type PodProblemReport } from "./pod-problem.js";
export * from "./ports.js";
export { canReplay } from "./replay-policy.js";
export {
  type ConfigIssue,
  defaultRevisionConfig,
  parseRevisions,
  type StaticRevision,
} from "./revisions-json.js";
export { httpStatTransport, StatPump, type StatPumpOptions, type StatTransport } from "./stat-pump.js";
export { StaticDirectory, StaticEndpointSource } from "./static-sources.js";
export { type ColdStartSample, Telemetry, type TelemetrySnapshot } from "./telemetry.js";
