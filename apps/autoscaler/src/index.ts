/**
 * @thaw/autoscaler-service: Knative's autoscaler as a Node service. Stats come in from activators
 * (websocket or POST) and from scraping queue-proxies; @thaw/autoscaler decides; a scaler (local processes,
 * Kubernetes, webhook) makes the replicas real; scale events and revision status go out to subscribers.
 */
export { bearerOk } from "./auth.js";
export { type Asset, dashboardAsset } from "./dashboard/assets.js";
export {
  type DashboardEvent,
  DashboardFeed,
  type DashboardFeedOptions,
  type FeedSource,
  type RevisionSample,
  type Sample,
} from "./dashboard/feed.js";
export { logDashboardRecords } from "./dashboard/log.js";
export { recordColdStartPhases } from "./dashboard/metrics.js";
export { dashboardPage } from "./dashboard/page.js";
export { type DashboardRoutesOptions, dashboardRoutes } from "./dashboard/routes.js";
export {
  pageAuthorized,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
  sessionCookieName,
  signInPage,
  unauthorizedJson,
} from "./dashboard/session.js";
export { dashboardStream } from "./dashboard/stream.js";
export {
  type AutoscalerEvent,
  type ColdStartEvent,
  EventHub,
  type ProblemEvent,
  type RevisionStatus,
  type ScaleEvent,
  type StatusEvent,
} from "./events.js";
export { DEFAULT_LEASE_NAME } from "./leader-lease.js";
export { jsonLogger, type Logger, pinoLogger, silentLogger } from "./logger.js";
export {
  type AutoscalerMetrics,
  autoscalerMetrics,
  PHASE_BUCKETS_SECONDS,
  statSocketMetrics,
} from "./metrics.js";
export { samplePods } from "./pod-sample.js";
export { type PolicyInput, type PolicyIssue, policyFor, type RevisionPolicy } from "./policy.js";
export { keyOf, type RevisionKey } from "./revision.js";
export { SCALE_WEBHOOK_SECRET_ENV, scaleReceiver } from "./scale-receiver.js";
export { type ContainerTarget, containerTarget } from "./scalers/container/container-target.js";
export {
  type ContainerInspect,
  type ContainerSummary,
  EngineClient,
  EngineError,
} from "./scalers/container/engine-api.js";
export { DEFAULT_SOCKETS, resolveSocket } from "./scalers/container/socket.js";
export {
  KubernetesScaler,
  type KubernetesScalerOptions,
  type KubernetesTarget,
} from "./scalers/kubernetes.js";
export { killAllGroups, killGroupsOnExit, liveGroupCount } from "./scalers/local/child.js";
export {
  defaultQueueProxyCommand,
  LocalScaler,
  type LocalScalerOptions,
} from "./scalers/local/local-scaler.js";
export type { KnativeQueueProxy, LocalServiceSpec } from "./scalers/local/pod-env.js";
export type { PodProblem, RevisionProblem } from "./scalers/local/pod-problem.js";
export { ScalerRouter } from "./scalers/router.js";
export { type PodInfo, readyAddresses, type Scaler } from "./scalers/scaler.js";
export { WebhookScaler, type WebhookScalerOptions, type WebhookTarget } from "./scalers/webhook.js";
export { SCRAPE_TIMEOUT_MS, type ScrapeOptions, type ScrapeResult, scrapeStat } from "./scrape.js";
export { httpScrapeStat } from "./scrape-http.js";
export {
  type AutoscalerServer,
  type AutoscalerServerOptions,
  autoscalerApp,
  startAutoscalerServer,
} from "./server.js";
export {
  AutoscalerService,
  type AutoscalerServiceOptions,
  DECIDER_TICK_MS,
  type RevisionGauges,
  SCRAPE_PERIOD_MS,
} from "./service.js";
export { type EventSource, sseResponse } from "./sse.js";
export { type IngestResult, ingestWireStats, type PushedStat } from "./stat-ingest.js";
export { attachStatSocket, type StatEndpointOptions, type StatSocket, statRoutes } from "./stat-server.js";
