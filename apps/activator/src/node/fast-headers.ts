import type { IncomingHttpHeaders } from "node:http";
import { HOP_BY_HOP_HEADERS, passthroughLbHeaders, REVISION_HEADERS } from "@thaw/protocol";
import type { RevisionKey } from "../ports.js";

const SKIP_REQUEST = new Set([...HOP_BY_HOP_HEADERS, "host", ...REVISION_HEADERS]);
const SKIP_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "proxy-connection",
  "trailer",
]);

/** The headers a warm forward sends the pod: hop-by-hop and revision headers out, the activator's in. */
export function forwardHeaders(
  h: IncomingHttpHeaders,
  key: RevisionKey,
  passthroughLb: boolean | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const k in h) {
    const v = h[k];
    if (v !== undefined && !SKIP_REQUEST.has(k)) headers[k] = v;
  }
  for (const c of (typeof h.connection === "string" ? h.connection : "").split(","))
    delete headers[c.trim().toLowerCase()];
  if (!headers["k-original-host"] && h.host) headers["k-original-host"] = h.host;
  headers["k-proxy-request"] = "activator";
  // undici sends a `host` entry as the Host header instead of the origin's.
  if (passthroughLb) {
    for (const [k, v] of passthroughLbHeaders(new Headers(), key)) headers[k] = v;
  }
  return headers;
}

/** The pod's response headers minus hop-by-hop ones, with `timing` appended to Server-Timing if given. */
export function answerHeaders(
  up: Record<string, string | string[] | undefined>,
  timing: string | undefined,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k in up) {
    const v = up[k];
    if (v !== undefined && !SKIP_RESPONSE.has(k)) out[k] = v;
  }
  if (timing !== undefined) {
    const had = out["server-timing"];
    out["server-timing"] = had === undefined ? timing : [...(Array.isArray(had) ? had : [had]), timing];
  }
  return out;
}
