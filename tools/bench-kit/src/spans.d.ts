/** What these helpers read of a span: an OpenTelemetry SDK ReadableSpan has it (no SDK import needed here). */
export interface SpanLike {
  name: string;
  spanContext(): { traceId: string; spanId: string };
  parentSpanContext?: { spanId: string } | undefined;
}
/** The one span named `name` (in trace `traceId` when given); throws naming how many there were otherwise. */
export function oneSpan<S extends SpanLike>(spans: readonly S[], name: string, traceId?: string): S;
/** The span id of a span's parent (undefined for a root span). */
export function parentOf(s: SpanLike): string | undefined;
/** A span's own span id. */
export function idOf(s: SpanLike): string;
/** Calls `pick` every 50 ms until it returns something other than undefined; throws after `timeoutMs` (15 s). */
export function eventually<T>(what: string, pick: () => T | undefined, timeoutMs?: number): Promise<T>;
