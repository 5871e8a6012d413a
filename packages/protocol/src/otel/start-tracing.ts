import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Tracer } from "../tracing.js";
import type { TracingConfig } from "../tracing-config.js";
import { otelTracer } from "./otel-tracer.js";

/** Tracing once it is on: the tracer to pass to the parts, and the flush on exit. */
export interface RunningTracing {
  tracer: Tracer;
  /** Sends every ended span now. */
  flush(): Promise<void>;
  /** Flushes, then stops the exporter; call before the process exits. */
  shutdown(): Promise<void>;
}

/** What {@link startTracing} may be given instead of what the config names (tests). */
export interface StartTracingOptions {
  /** Export each span at once to this exporter (an in-memory one in tests) instead of the configured one. */
  exporter?: SpanExporter;
  /** The instrumentation scope's name (default `thaw`). */
  scope?: string;
}

/**
 * Loads the OpenTelemetry SDK and exporter (dynamic imports: a process with tracing off never loads them)
 * and returns Thaw's tracer over it. The sampler ignores the incoming `traceparent`'s sampled flag: the
 * parent context comes from clients, who must not decide what the operator records.
 */
export async function startTracing(
  config: TracingConfig,
  o: StartTracingOptions = {},
): Promise<RunningTracing> {
  const [api, core, sdk, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
  ]);
  let processor: InstanceType<typeof sdk.SimpleSpanProcessor> | InstanceType<typeof sdk.BatchSpanProcessor>;
  if (o.exporter) processor = new sdk.SimpleSpanProcessor(o.exporter);
  else if (config.exporter === "console")
    processor = new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter());
  else {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    // Batched (the SDK's defaults, or OTEL_BSP_* when set): one HTTP request per batch, off the request path.
    processor = new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: config.url }));
  }
  const sampler =
    config.sampleRatio >= 1
      ? new sdk.AlwaysOnSampler()
      : config.sampleRatio <= 0
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(config.sampleRatio);
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": config.serviceName }),
    sampler,
    spanProcessors: [processor],
  });
  const tracer = otelTracer(api, provider.getTracer(o.scope ?? "thaw"), new core.W3CTraceContextPropagator());
  return {
    tracer,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
