import { type HeaderSource, probeHeaderValue } from "./classify.js";
import { ProbeValue } from "./headers.js";
import { plainError, plainText } from "./http-text.js";

/** The queue-proxy's readiness check of its user container: true = ready. */
export type QueueProber = () => boolean | Promise<boolean>;

/**
 * The queue-proxy health handler (knative-spec.md a.3, table "QP health handler"), for requests the
 * drainer already classified as health checks: 400 for a probe value other than `queue`, 500 `no probe`
 * without a prober, 503 when the prober says not ready (or fails), else 200 `queue`.
 */
export async function queueHealthResponse(
  source: HeaderSource,
  prober: QueueProber | null | undefined,
): Promise<Response> {
  const value = probeHeaderValue(source);
  if (value !== ProbeValue.queue) return plainError(400, `unexpected probe header value: ${value}`);
  if (!prober) return plainError(500, "no probe");
  let ready: boolean;
  try {
    ready = await prober();
  } catch {
    // A prober that blows up has not shown readiness; the kubelet retries on its own period.
    ready = false;
  }
  return ready ? plainText(200, ProbeValue.queue) : plainText(503);
}
