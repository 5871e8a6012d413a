import type { Clock } from "@thaw/clock";
import { errorTextResponse, Header, httpStatusFor, PROXY_REQUEST_ACTIVATOR, UserAgent } from "@thaw/protocol";
import type { Gate } from "./gate.js";
import { releaseAtBodyEnd } from "./release-at-body-end.js";
import type { RequestStats } from "./request-stats.js";

/** What a fetch-style handler is. */
export type FetchHandler = (req: Request) => Promise<Response>;

/** Wiring of {@link gatedHandler}. */
export interface GatedHandlerOptions {
  /** The upstream (user container) call. */
  next: FetchHandler;
  /** The concurrency breaker; absent for containerConcurrency 0. */
  gate?: Gate;
  /** Concurrency accounting fed with (proxied) in/out events. */
  stats?: RequestStats;
  /** Timestamps for `stats`. */
  clock: Clock;
}

/**
 * The queue-proxy's request path around the user container (c.3, c.5): kubelet probes pass straight
 * through; other requests are counted (as proxied when the activator sent them), get their original
 * Host back from `K-Original-Host`, and wait for the breaker. Queue full and deadline answer 503 with
 * the error text, other admission failures 500. The slot is held until the response body is done.
 */
export function gatedHandler(opts: GatedHandlerOptions): FetchHandler {
  const { next, gate, stats, clock } = opts;
  return async (req) => {
    const ua = req.headers.get(Header.userAgent) ?? "";
    if (ua.startsWith(UserAgent.kubeletPrefix) || req.headers.has(Header.kubeletProbe)) return next(req);
    const proxied = req.headers.get(Header.proxyRequest) === PROXY_REQUEST_ACTIVATOR;
    if (proxied) stats?.proxiedIn(clock.now());
    else stats?.requestIn(clock.now());
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (proxied) stats?.proxiedOut(clock.now());
      else stats?.requestOut(clock.now());
    };
    if (gate && !gate.tryAcquire()) {
      try {
        await gate.acquire(req.signal);
      } catch (err) {
        finish();
        // Knative writes the text for the 503s (queue full, deadline) and an empty 500 for the rest.
        const code = String((err as { code?: unknown }).code ?? "");
        const status = httpStatusFor(code);
        return status === 503
          ? errorTextResponse(code, (err as Error).message)
          : new Response(null, { status });
      }
    }
    const release = () => {
      if (done) return;
      finish();
      gate?.release();
    };
    try {
      const res = await next(restoreHost(req));
      return releaseAtBodyEnd(res, release);
    } catch (err) {
      release();
      throw err;
    }
  };
}

/** Puts `K-Original-Host` back into Host, as the activator's forward asked. */
function restoreHost(req: Request): Request {
  const original = req.headers.get(Header.originalHost);
  if (!original) return req;
  const headers = new Headers(req.headers);
  headers.set("host", original);
  headers.delete(Header.originalHost);
  return new Request(req, { headers });
}
