/**
 * @thaw/readiness: Kubernetes readiness probes with Knative's rules (knative-spec.md section b). Parse,
 * default, validate and rewrite probes for the queue-proxy, and run them through an injected transport
 * (`@thaw/readiness/node`, `@thaw/readiness/workerd`) in normal or aggressive mode.
 */
export { type AttemptOptions, type AttemptResult, runProbeAttempt } from "./attempt.js";
export { withDeadline } from "./deadline.js";
export { decodeProbeEnv } from "./decode.js";
export { applyRevisionDefaults, type RevisionDefaultsConfig, type RevisionSpec } from "./defaults.js";
export { encodeProbe, encodeProbeEnv, goString } from "./encode.js";
export { ProbeError, ProbeErrorCode, toProbeError } from "./errors.js";
export {
  type FieldError,
  fieldErrorsToIssues,
  issuesToFieldErrors,
  mergeFieldErrors,
  renderFieldErrors,
} from "./field-error.js";
export {
  decodeGrpcHealthRequest,
  decodeGrpcHealthResponse,
  encodeGrpcHealthRequest,
  encodeGrpcHealthResponse,
  GRPC_HEALTH_CHECK_PATH,
  grpcFrame,
  readGrpcFrames,
} from "./grpc-health.js";
export { groupHeaders } from "./headers.js";
export {
  detectHttpProtocol,
  type HttpAttemptContext,
  type HttpProbeMode,
  httpProbeAttempt,
  PROBE_USER_AGENT,
  probeUrl,
} from "./http-probe.js";
export { DISALLOWED, type ParseOptions, parseProbe, parseProbeList } from "./parse.js";
export {
  AGGRESSIVE_TIMING,
  type AggressiveTiming,
  createProber,
  Prober,
  type ProberOptions,
} from "./prober.js";
export {
  DEFAULT_USER_PORT,
  numericPort,
  PROBE_HOST,
  QUEUE_H2C_PORT,
  QUEUE_HTTP_PORT,
  type QueueProxyProbeInput,
  queueProxyOwnProbe,
  queueProxyProbeEnv,
  queueServingPortOf,
  rewriteForQueueProxy,
  userPortOf,
} from "./queue-env.js";
export type {
  GrpcHealthRequest,
  GrpcServingStatus,
  HttpProbeRequest,
  HttpProbeResponse,
  HttpProtocol,
  ProbeTransport,
} from "./transport.js";
export * from "./types.js";
export { type UserContainerProbes, userContainerProbes } from "./user-container.js";
export {
  type ValidateOptions,
  type ValidateProbeOptions,
  validateContainer,
  validateContainerProbes,
  validateProbe,
} from "./validate.js";
export { type RevisionLimits, validateRevisionBounds } from "./validate-revision.js";
