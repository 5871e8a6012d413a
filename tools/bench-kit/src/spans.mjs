// Reading spans in tests: the one span of a name, its parent, and a bounded wait for spans that are
// exported later (another process's batch over OTLP, a span that ends after the response). Types: spans.d.ts.

/**
 * @template {import("./spans.d.ts").SpanLike} S
 * @param {readonly S[]} spans
 * @param {string} name
 * @param {string} [traceId]
 * @returns {S}
 */
export function oneSpan(spans, name, traceId) {
  const found = spans.filter(
    (s) => s.name === name && (traceId === undefined || s.spanContext().traceId === traceId),
  );
  if (found.length !== 1) {
    const where = traceId === undefined ? "" : ` in trace ${traceId}`;
    throw new Error(
      `expected exactly one ${name} span${where}, found ${found.length} (all: ${spans.map((s) => s.name).join(", ")})`,
    );
  }
  return /** @type {S} */ (found[0]);
}

/** @param {import("./spans.d.ts").SpanLike} s */
export const parentOf = (s) => s.parentSpanContext?.spanId;

/** @param {import("./spans.d.ts").SpanLike} s */
export const idOf = (s) => s.spanContext().spanId;

/**
 * @template T
 * @param {string} what
 * @param {() => T | undefined} pick
 * @param {number} [timeoutMs]
 * @returns {Promise<T>}
 */
export async function eventually(what, pick, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  // Bounded in time, and in count too (a 50 ms step gives the deadline first).
  for (let i = 0; i < 100_000; i++) {
    const v = pick();
    if (v !== undefined) return v;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
