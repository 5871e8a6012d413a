import { redactTarget, type Tracer } from "@thaw/protocol";
import type { Logger } from "pino";
import type { Exchange, ExchangeObserver } from "./exchange.js";
import { fieldValue } from "./request-head.js";
import type { RequestMetrics } from "./request-metrics.js";

/**
 * What runs when a request ends: the duration histogram (probes excluded, as they never count) and the
 * optional JSON request log, shaped like Knative's default template (`httpRequest`). Returns null when
 * both are off so the hot path skips the call altogether.
 */
export function createObserver(metrics: RequestMetrics | null, log: Logger | null): ExchangeObserver | null {
  if (metrics === null && log === null) return null;
  return {
    done(ex: Exchange, status: number, ms: number) {
      if (ex.counted) metrics?.observe(status, ms);
      if (log !== null) {
        const { client, headers } = ex;
        log.info({
          httpRequest: {
            requestMethod: client.method,
            requestUrl: redactTarget(client.target),
            requestSize: String(Math.max(0, client.bodyFraming)),
            status,
            responseSize: client.responseLength,
            userAgent: fieldValue(headers, "user-agent"),
            remoteIp: client.remoteAddress,
            serverIp: client.localAddress,
            referer: fieldValue(headers, "referer"),
            latency: `${(ms / 1000).toFixed(6)}s`,
            protocol: client.protocol,
          },
        });
      }
    },
  };
}

/**
 * With a tracer, `inner` plus the end of each request's span, so the hot path's existing observer call
 * carries tracing and `Exchange.finish` checks nothing more. Without one, `inner` unchanged.
 */
export function withTracing(
  inner: ExchangeObserver | null,
  tracer: Tracer | undefined,
): ExchangeObserver | null {
  if (!tracer) return inner;
  return {
    done(ex, status, ms) {
      inner?.done(ex, status, ms);
      const { span } = ex;
      if (span === null) return;
      span.setAttribute("http.response.status_code", status);
      span.end(status >= 500 ? `HTTP ${status}` : status === 0 ? "client went away" : undefined);
    },
  };
}
