/**
 * @thaw/ingress-hook: the seed's Envoy Lua filter without its two obstacles. The revision is resolved from
 * route metadata, warm requests pass from a local cache with no activator call, and cold ones wait for
 * one activation per revision. Served as a forward-auth service (nginx, Envoy, Traefik) or as Hono
 * middleware; Node entry points live under `./node`.
 */

export { type Issue, type Parsed, parseServiceRoutes } from "./config.js";
export {
  type ActivateAnswerValue,
  type ActivationOutcome,
  type ActivatorClient,
  type FetchLike,
  type HttpActivatorOptions,
  httpActivatorClient,
  inProcessActivatorClient,
} from "./decision/activator-client.js";
export { CapacityRelease, type PodSlot } from "./decision/capacity-release.js";
export type { Allow, Cold, Decision, Deny } from "./decision/decision.js";
export { HeldDemand, type HeldStatsSink, SETTLE_MS } from "./decision/held-demand.js";
export { type ActivatorStatsSinkOptions, activatorStatsSink } from "./decision/held-stats-sink.js";
export {
  denyStatus,
  type HookStats,
  IngressHook,
  type IngressHookOptions,
  type Released,
} from "./decision/hook.js";
export {
  findInternalHeaders,
  isInternalHeader,
  REVISION_HEADER,
  ROUTE_TOKEN_HEADER,
  STRIPPED_HEADERS,
  stripInternalHeaders,
  UPSTREAM_HEADER,
} from "./decision/internal-headers.js";
export { type HookRequest, normalizeHost, pathOf } from "./decision/request-view.js";
export {
  envoyDecoratorResolver,
  hostTableResolver,
  type Resolver,
  routeHeadersResolver,
  runResolvers,
  type ServiceRoute,
} from "./decision/resolvers.js";
export type { RevisionSlot } from "./decision/revision-slot.js";
export { isRouteTrusted } from "./decision/route-trust.js";
export { SingleFlight } from "./decision/single-flight.js";
export {
  activationPolicyPicker,
  type PodChooser,
  type PolicyPickerOptions,
  type UpstreamPicker,
} from "./decision/upstream-picker.js";
export { WarmCache, type WarmEntry } from "./decision/warm-cache.js";
export { type SendHint, serviceRefOf, WarmHinter, type WarmRule } from "./decision/warm-hints.js";
export { readEvents, type WatchHandle, type WatchOptions, watchEndpoints } from "./decision/watch.js";
export { type Dialect, detectDialect, forwardAuthApp, viewOf } from "./forward-auth.js";
export type { ConnectionEnded } from "./left-while-held.js";
export { type HookMetrics, hookMetrics } from "./metrics.js";
export {
  middlewareView,
  type ThawIngressOptions,
  type ThawIngressVariables,
  thawIngress,
} from "./middleware.js";
export { allowHeaders, denyResponse, nginxDenyResponse, WARM_CACHE_CONTROL } from "./respond.js";
export { prefersHtml } from "./waiting-page/accept.js";
export { isPoll, POLL_HOLD_MS, type WaitingPage, wantsPage } from "./waiting-page/hold.js";
export { type PageFacts, POLL_HEADER, POLL_VALUE, waitingPageResponse } from "./waiting-page/page.js";
export { PLACEHOLDERS, parseTemplate, renderTemplate, type Template } from "./waiting-page/template.js";
export { parseWarmRules } from "./warm-rules.js";
