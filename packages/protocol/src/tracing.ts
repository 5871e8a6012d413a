/** A span attribute value (OpenTelemetry's primitive attribute types). */
export type SpanAttributeValue = string | number | boolean;

/** A span's attributes by name. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue>>;

/** The span kinds Thaw uses: a hop received (server), a hop sent (client), work inside one part (internal). */
export type SpanKind = "server" | "client" | "internal";

/** Reads one request header by its lowercase name; null or undefined = absent. */
export type HeaderReader = (name: string) => string | null | undefined;

/** W3C trace-context header names (https://www.w3.org/TR/trace-context/), lowercase as fields compare. */
export const TRACEPARENT_HEADER = "traceparent";
/** See {@link TRACEPARENT_HEADER}. */
export const TRACESTATE_HEADER = "tracestate";

/** The trace-context fields that make the next hop a child of a span. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** One span in flight. The apps hold these only when tracing is on. */
export interface TraceSpan {
  /** Adds or replaces one attribute. */
  setAttribute(key: string, value: SpanAttributeValue): void;
  /** Starts a span under this one; `startMs` (epoch ms) for a phase measured before it is reported. */
  child(name: string, kind?: SpanKind, attributes?: SpanAttributes, startMs?: number): TraceSpan;
  /** The `traceparent` (and `tracestate`) to send on a request so its receiver continues under this span. */
  carrier(): TraceCarrier;
  /** Ends the span (at `endMs`, epoch ms, else now); an error text marks it failed. */
  end(error?: string, endMs?: number): void;
}

/**
 * The tracer the core and the apps speak to: small enough that a runtime without OpenTelemetry can fill it,
 * so core code takes it as a parameter and imports nothing. Absent (undefined or null) means tracing is off,
 * and callers check that once instead of calling a no-op.
 */
export interface Tracer {
  /**
   * Starts a span continuing the W3C trace context in `header` (a child of the caller's span), or a new
   * trace when the request carries none or an invalid one. The incoming context is only a parent: it does
   * not decide sampling or anything else, since any client can send it.
   */
  startSpan(name: string, header: HeaderReader, kind?: SpanKind, attributes?: SpanAttributes): TraceSpan;
}

/** Reads a header from a flat `[name, value, name, value, ...]` field list, names in any case. */
export function fieldListReader(fields: readonly string[]): HeaderReader {
  return (name) => {
    for (let i = 0; i < fields.length; i += 2) if (fields[i]?.toLowerCase() === name) return fields[i + 1];
    return undefined;
  };
}

/** `fields` with any trace-context fields replaced by `carrier`'s, so the next hop continues this span. */
export function withCarrier(fields: readonly string[], carrier: TraceCarrier): string[] {
  const out: string[] = [];
  for (let i = 0; i < fields.length; i += 2) {
    const name = (fields[i] as string).toLowerCase();
    if (name !== TRACEPARENT_HEADER && name !== TRACESTATE_HEADER)
      out.push(fields[i] as string, fields[i + 1] as string);
  }
  out.push(TRACEPARENT_HEADER, carrier.traceparent);
  if (carrier.tracestate) out.push(TRACESTATE_HEADER, carrier.tracestate);
  return out;
}
