import type { Logger } from "pino";
import type { Exchange, ExchangeObserver } from "./exchange.js";
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
        const { req } = ex;
        log.info({
          httpRequest: {
            requestMethod: req.method,
            requestUrl: req.url,
            requestSize: req.headers["content-length"] ?? "0",
            status,
            responseSize: ex.res.getHeader("content-length") ?? "",
            userAgent: req.headers["user-agent"] ?? "",
            remoteIp: req.socket.remoteAddress ?? "",
            serverIp: req.socket.localAddress ?? "",
            referer: req.headers.referer ?? "",
            latency: `${(ms / 1000).toFixed(6)}s`,
            protocol: `HTTP/${req.httpVersion}`,
          },
        });
      }
    },
  };
}
