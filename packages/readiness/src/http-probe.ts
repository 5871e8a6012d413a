import type { Clock } from "@thaw/clock";
import { withDeadline } from "./deadline.js";
import { ProbeError, ProbeErrorCode } from "./errors.js";
import { numericPort, PROBE_HOST } from "./queue-env.js";
import type { HttpProbeRequest, HttpProtocol, ProbeTransport } from "./transport.js";
import type { HttpGetAction } from "./types.js";

/** The User-Agent Knative's queue-proxy sends: `kube-probe/<major>/<minor>` with both fields empty. */
export const PROBE_USER_AGENT = "kube-probe//";

/** How an HTTP probe picks its protocol: HTTP/1.1 only, h2c only, or Knative's auto-detection. */
export type HttpProbeMode = HttpProtocol | "auto";

/** What one HTTP probe attempt runs with. */
export interface HttpAttemptContext {
  transport: ProbeTransport;
  clock: Clock;
  /** Timeout of each request of the attempt. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The URL an `httpGet` action probes: `<scheme>://<host>:<port>/<path>` with the query kept. */
export function probeUrl(action: HttpGetAction): string {
  const port = numericPort(action.port);
  if (port === undefined) {
    throw new ProbeError(
      ProbeErrorCode.BadPort,
      `httpGet port ${JSON.stringify(action.port ?? 0)} is not a port number`,
    );
  }
  const scheme = (action.scheme || "HTTP").toLowerCase();
  const host = action.host || PROBE_HOST;
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const path = (action.path ?? "").replace(/^\/+/, "");
  return `${scheme}://${h}:${port}/${path}`;
}

function request(action: HttpGetAction, protocol: HttpProtocol, userHeaders: boolean): HttpProbeRequest {
  const headers: [string, string][] = [["User-Agent", PROBE_USER_AGENT]];
  if (userHeaders) for (const h of action.httpHeaders ?? []) headers.push([h.name, h.value]);
  return { url: probeUrl(action), headers, protocol };
}

/** Go's http.Client gives up after this many redirects. */
export const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request and follows redirects as Go's default client does (Knative's prober sets no redirect
 * policy): up to 10, same headers and protocol, the whole chain within one timeout. Resolves with the
 * final status; rejects on a failure to get one.
 */
async function send(first: HttpProbeRequest, ctx: HttpAttemptContext): Promise<number> {
  return withDeadline(ctx.clock, ctx.timeoutMs, ctx.signal, async (signal) => {
    let req = first;
    for (let hops = 0; ; hops++) {
      const res = await ctx.transport.http(req, ctx.timeoutMs, signal);
      if (!REDIRECTS.has(res.status) || !res.location) return res.status;
      if (hops === MAX_REDIRECTS) {
        throw new ProbeError(ProbeErrorCode.Status, `HTTP probe stopped after ${MAX_REDIRECTS} redirects`);
      }
      req = { ...req, url: new URL(res.location, req.url).href };
    }
  });
}

function isReady(status: number): boolean {
  return status >= 200 && status < 400;
}

function notReady(status: number): ProbeError {
  return new ProbeError(ProbeErrorCode.Status, `HTTP probe answered ${status}, want 200-399`);
}

/**
 * Knative's HTTP/2 auto-detection: an h2c prior-knowledge GET without user headers, and if that is not
 * ready (or fails) an HTTP/1.1 GET. Resolves with the major version that answered ready; rejects when
 * neither did. Nothing is remembered between attempts.
 */
export async function detectHttpProtocol(action: HttpGetAction, ctx: HttpAttemptContext): Promise<1 | 2> {
  try {
    if (isReady(await send(request(action, "h2c", false), ctx))) return 2;
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
  }
  const status = await send(request(action, "http1", false), ctx);
  if (isReady(status)) return 1;
  throw notReady(status);
}

/**
 * One HTTP probe attempt: GET with `User-Agent: kube-probe//` then the user's headers, ready on 200-399.
 * In `auto` mode the protocol is detected first; an HTTP/1 server that answers ready ends the attempt.
 */
export async function httpProbeAttempt(
  action: HttpGetAction,
  mode: HttpProbeMode,
  ctx: HttpAttemptContext,
): Promise<void> {
  let protocol: HttpProtocol = mode === "auto" ? "h2c" : mode;
  if (mode === "auto") {
    const major = await detectHttpProtocol(action, ctx);
    if (major === 1) return;
    protocol = "h2c";
  }
  const status = await send(request(action, protocol, true), ctx);
  if (!isReady(status)) throw notReady(status);
}
