import { ROUTE_TOKEN_HEADER } from "./internal-headers.js";

/**
 * The rule for route-set headers. A proxy passes the client's own headers into the auth check (nginx's
 * auth subrequest, Envoy's ext_authz, Traefik's forwardAuth), so a `Knative-Serving-Revision` there may be
 * the client's. The hook believes such headers only when the request also carries the route token, a
 * secret the proxy adds in the same place it sets them (nginx `proxy_set_header` in the auth location,
 * which replaces any client value; Envoy route `request_headers_to_add` with OVERWRITE; a Traefik headers
 * middleware). No token configured means route headers are never believed.
 */
export function isRouteTrusted(headers: Headers, token: string | undefined): boolean {
  if (!token) return false;
  const sent = headers.get(ROUTE_TOKEN_HEADER);
  return sent !== null && constantTimeEqual(sent, token);
}

/** Compares without an early exit, so timing does not leak how much of the token matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}
