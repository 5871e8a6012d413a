import { Header, INTERNAL_HEADERS, PROXY_REQUEST_ACTIVATOR } from "./headers.js";
import { dropConnectionNamed, stripHopByHop } from "./hop-by-hop.js";
import type { RevisionId } from "./revision-id.js";

/** Headers that name the target revision; both reverse proxies (activator, queue-proxy) drop them. */
export const REVISION_HEADERS: readonly string[] = [Header.revision, Header.namespace];

/**
 * The host the client asked for, preserved across the activator hop: `K-Original-Host` when an earlier
 * hop set it, else `host`.
 */
export function originalHost(headers: Headers, host: string): string {
  return headers.get(Header.originalHost) || host;
}

/**
 * Headers the activator sends upstream (knative-spec.md d.1): `K-Original-Host` <- `host` unless already
 * present, `K-Proxy-Request: activator`, and no `Host` (the upstream URL's authority replaces it) nor
 * revision headers. `host` is the authority the activator received. The fields the client's `Connection`
 * names go first, so none of the activator's own can be named away.
 */
export function activatorForwardHeaders(headers: Headers, host: string): Headers {
  const out = dropConnectionNamed(new Headers(headers));
  if (!out.has(Header.originalHost) && host !== "") out.set(Header.originalHost, host);
  out.delete("host");
  out.set(Header.proxyRequest, PROXY_REQUEST_ACTIVATOR);
  for (const name of REVISION_HEADERS) out.delete(name);
  return out;
}

/**
 * The headers the activator's proxy handler sends upstream: {@link activatorForwardHeaders} without
 * hop-by-hop headers, except that a websocket handshake keeps `Upgrade: websocket` and
 * `Connection: Upgrade` (Workers forward it through fetch; Node splices the sockets).
 */
export function activatorUpstreamHeaders(headers: Headers, host: string): Headers {
  const out = stripHopByHop(activatorForwardHeaders(headers, host));
  const upgrade = headers.get("upgrade");
  if (upgrade?.toLowerCase() === "websocket") {
    out.set("upgrade", upgrade);
    out.set("connection", "Upgrade");
  }
  return out;
}

/** The private service of a revision that a passthrough-LB mesh routes by Host: `<rev>-private.<ns>`. */
export function privateServiceHost(revision: RevisionId): string {
  return `${revision.name}-private.${revision.namespace}`;
}

/**
 * With passthrough load balancing (knative-spec.md a.1, P2, d.1) the activator's requests and probes to a
 * pod carry `Host: <rev>-private.<ns>` and `K-Passthrough-Lb: true`, so the mesh keeps the pod it was sent to.
 * Returns a copy of `headers` with both set.
 */
export function passthroughLbHeaders(headers: Headers, revision: RevisionId): Headers {
  const out = new Headers(headers);
  out.set("host", privateServiceHost(revision));
  out.set(Header.passthroughLb, "true");
  return out;
}

/** What the queue-proxy forwards to the user container: the Host to use and the cleaned headers. */
export interface QueueProxyForward {
  host: string;
  headers: Headers;
}

/**
 * The queue-proxy side of the hop (knative-spec.md a.1): `Host` comes back from `K-Original-Host`
 * (else stays `host`), and `K-Original-Host` plus the revision headers are removed.
 */
export function queueProxyForwardHeaders(headers: Headers, host: string): QueueProxyForward {
  const out = new Headers(headers);
  const restored = originalHost(headers, host);
  out.delete(Header.originalHost);
  for (const name of REVISION_HEADERS) out.delete(name);
  if (out.has("host")) out.set("host", restored);
  return { host: restored, headers: out };
}

/** A copy of `headers` without every header only Knative components may set (DESIGN.md contract 5). */
export function withoutInternalHeaders(
  headers: Headers,
  internal: readonly string[] = INTERNAL_HEADERS,
): Headers {
  const out = new Headers(headers);
  for (const name of internal) out.delete(name);
  return out;
}

/** True when a proxy (in practice the activator) forwarded this request: the queue-proxy counts it as proxied. */
export function isProxiedRequest(headers: Headers): boolean {
  return (headers.get(Header.proxyRequest) ?? "") !== "";
}

/**
 * Response header a queue-proxy adds to its own 502 when the user container refused the connection (or
 * never accepted it), so no request byte reached the app: a proxy in front may send the request to
 * another pod whatever its method. Proxies remove it before answering a client.
 */
export const APP_UNREACHED_HEADER = "x-thaw-app-unreached";

/** True for a queue-proxy's 502 that says the app never got the request (see {@link APP_UNREACHED_HEADER}). */
export function isAppUnreached(status: number, headers: Headers): boolean {
  return status === 502 && headers.has(APP_UNREACHED_HEADER);
}

/**
 * Response header a queue-proxy adds to its own 502 when the app's connection broke after the request went
 * to it and before any byte of an answer (the app crashed, or its container was killed under it). The app
 * may have acted on the request, so a proxy in front may send it to another pod only as the replay rules
 * allow (an idempotent method, or an Idempotency-Key). Proxies remove it before answering a client.
 */
export const APP_FAILED_HEADER = "x-thaw-app-failed";

/** True for a queue-proxy's 502 that says the app broke before answering (see {@link APP_FAILED_HEADER}). */
export function isAppFailed(status: number, headers: Headers): boolean {
  return status === 502 && headers.has(APP_FAILED_HEADER);
}
