/**
 * @thaw/protocol/otel: Thaw's tracer over the OpenTelemetry SDK. Import it only when tracing is on (the
 * Node entries do so with a dynamic import): it loads `@opentelemetry/*`, optional peers of this package.
 */

export { TRACING_ENV_VARS } from "../tracing-config.js";
export { formatTracingIssues, type TracingFromEnv, tracingFromEnv } from "./from-env.js";
export { type OtelApiModule, otelTracer } from "./otel-tracer.js";
export { type RunningTracing, type StartTracingOptions, startTracing } from "./start-tracing.js";
