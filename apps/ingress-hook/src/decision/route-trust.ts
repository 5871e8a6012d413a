import { tokenMatches } from "@thaw/protocol";
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
  // Constant time, so response times do not tell how much of a guess matched.
  return sent !== null && tokenMatches(sent, token);
}
