import type * as OtelApi from "@opentelemetry/api";
import type { HeaderReader, SpanKind, TraceCarrier, Tracer, TraceSpan } from "../tracing.js";

/** The parts of `@opentelemetry/api` the adapter calls, passed in because the module is loaded only when on. */
export type OtelApiModule = Pick<typeof OtelApi, "ROOT_CONTEXT" | "trace" | "SpanKind" | "SpanStatusCode">;

const readerGetter: OtelApi.TextMapGetter<HeaderReader> = {
  get: (read, key) => read(key) ?? undefined,
  keys: () => [],
};
const carrierSetter: OtelApi.TextMapSetter<Partial<TraceCarrier>> = {
  set: (carrier, key, value) => {
    if (key === "traceparent" || key === "tracestate") carrier[key] = value;
  },
};

/** Thaw's {@link Tracer} over an OpenTelemetry tracer and a W3C trace-context propagator. */
export function otelTracer(
  api: OtelApiModule,
  tracer: OtelApi.Tracer,
  propagator: OtelApi.TextMapPropagator,
): Tracer {
  const kinds: Record<SpanKind, OtelApi.SpanKind> = {
    server: api.SpanKind.SERVER,
    client: api.SpanKind.CLIENT,
    internal: api.SpanKind.INTERNAL,
  };
  const wrap = (span: OtelApi.Span): TraceSpan => {
    const ctx = api.trace.setSpan(api.ROOT_CONTEXT, span);
    return {
      setAttribute: (key, value) => void span.setAttribute(key, value),
      child: (name, kind = "internal", attributes, startMs) =>
        wrap(
          tracer.startSpan(
            name,
            {
              kind: kinds[kind],
              ...(attributes ? { attributes } : {}),
              ...(startMs !== undefined ? { startTime: startMs } : {}),
            },
            ctx,
          ),
        ),
      carrier() {
        const out: Partial<TraceCarrier> = {};
        propagator.inject(ctx, out, carrierSetter);
        return {
          traceparent: out.traceparent ?? "",
          ...(out.tracestate ? { tracestate: out.tracestate } : {}),
        };
      },
      end(error, endMs) {
        if (error !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: error });
        span.end(endMs);
      },
    };
  };
  return {
    startSpan(name, header, kind = "server", attributes) {
      // The W3C propagator checks the fields' syntax and drops invalid ones: then this is a new trace.
      const parent = propagator.extract(api.ROOT_CONTEXT, header, readerGetter);
      return wrap(
        tracer.startSpan(name, { kind: kinds[kind], ...(attributes ? { attributes } : {}) }, parent),
      );
    },
  };
}
