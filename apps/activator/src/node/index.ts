/** @thaw/activator/node: the Node runtime pieces (server, config, HTTP/1 pools to the pods, websocket stats). */
export {
  type ActivatorConfig,
  type ConfigIssue,
  defaultRevisionConfig,
  readConfig,
  type StaticRevision,
} from "./config.js";
export {
  activatorDialPolicy,
  createH1Forwarder,
  type H1Forwarder,
  type PoolOptions,
} from "./h1-forwarder.js";
export { h2RequestHeaders, handleH2Stream, PodSessions } from "./h2-proxy.js";
export { acceptH2c } from "./h2c-accept.js";
export { jsonLogger } from "./json-logger.js";
export { type ActivatorMetricSources, createMetrics } from "./metrics.js";
export {
  type ActivatorOverrides,
  type ProblemNotes,
  type RunningActivator,
  startActivator,
} from "./server.js";
export { handleUpgrade, type UpgradeOptions } from "./upgrade.js";
export { wsStatTransport } from "./ws-stat-transport.js";
