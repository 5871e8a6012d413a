import type { IncomingHttpHeaders } from "node:http";
import {
  Header,
  HOP_BY_HOP_HEADERS,
  PROXY_REQUEST_ACTIVATOR,
  privateServiceHost,
  REVISION_HEADERS,
} from "@thaw/protocol";
import type { RevisionKey } from "../ports.js";

/**
 * Never copied from the client: hop-by-hop and revision headers, Host (the pod's, or the private service's
 * with passthrough LB), the activator's own `K-Proxy-Request`, and Content-Length (the HTTP/1 client frames
 * the request itself).
 */
const SKIP_REQUEST = new Set([
  ...HOP_BY_HOP_HEADERS,
  "host",
  "content-length",
  Header.proxyRequest,
  ...REVISION_HEADERS,
]);

/**
 * The fields a warm forward sends the pod, as the HTTP/1 client's flat [name, value, ...] list: the
 * portable path's (`activatorUpstreamHeaders`), hop-by-hop and revision headers out, `K-Original-Host` and
 * `K-Proxy-Request` in, and with passthrough LB the private service's Host and `K-Passthrough-Lb`.
 * Node's parser has checked every name and value, so they go out as they came.
 */
export function forwardFields(
  h: IncomingHttpHeaders,
  key: RevisionKey,
  passthroughLb: boolean | undefined,
): string[] {
  const out: string[] = [];
  const connection = h.connection;
  // Fields the client's Connection header names are hop-by-hop too (RFC 9110 7.6.1).
  const named = typeof connection === "string" && connection !== "" ? connectionNamed(connection) : null;
  for (const k in h) {
    const v = h[k];
    if (v === undefined || SKIP_REQUEST.has(k) || named?.has(k)) continue;
    if (passthroughLb && k === Header.passthroughLb) continue;
    if (typeof v === "string") out.push(k, v);
    else for (const x of v) out.push(k, x);
  }
  const original = named?.has(Header.originalHost) ? undefined : h[Header.originalHost];
  if (!original && h.host) out.push(Header.originalHost, h.host);
  out.push(Header.proxyRequest, PROXY_REQUEST_ACTIVATOR);
  if (passthroughLb) out.push("host", privateServiceHost(key), Header.passthroughLb, "true");
  return out;
}

/** The lower-case names a Connection header lists. */
function connectionNamed(value: string): Set<string> | null {
  const lower = value.toLowerCase();
  // `keep-alive` and `close` name no field: skip the set for them.
  if (lower === "keep-alive" || lower === "close") return null;
  return new Set(lower.split(",").map((t) => t.trim()));
}

/** Whether a flat [name, value, ...] list has a field `lower` (compared without case). */
export function hasField(fields: readonly string[], lower: string): boolean {
  for (let i = 0; i < fields.length; i += 2) if ((fields[i] as string).toLowerCase() === lower) return true;
  return false;
}
