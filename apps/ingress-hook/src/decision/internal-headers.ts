import { INTERNAL_HEADERS } from "@thaw/protocol";

/** Header the route adds next to route-set Knative headers to prove that it, not the client, set them. */
export const ROUTE_TOKEN_HEADER = "x-thaw-route-token";
/** Header of an allow answer naming the ready pod (`host:port`) the proxy should send the request to. */
export const UPSTREAM_HEADER = "x-thaw-upstream";
/** Header of an allow answer naming the revision (`namespace/name`), for logs and cache keys. */
export const REVISION_HEADER = "x-thaw-revision";

/** Everything an outsider must never get past the ingress: Knative's internal headers plus the hook's own. */
export const STRIPPED_HEADERS: readonly string[] = [...INTERNAL_HEADERS, ROUTE_TOKEN_HEADER, UPSTREAM_HEADER];

const STRIPPED = new Set(STRIPPED_HEADERS);

/** True for a header name the ingress strips: the fixed list and every `Knative-Serving-*`. */
export function isInternalHeader(lowerName: string): boolean {
  return STRIPPED.has(lowerName) || lowerName.startsWith("knative-serving-");
}

/** Names of the internal headers present in `headers` (lower-case, in the order `Headers` iterates). */
export function findInternalHeaders(headers: Headers): string[] {
  const found: string[] = [];
  headers.forEach((_value, name) => {
    if (isInternalHeader(name)) found.push(name);
  });
  return found;
}

/** A copy of `headers` without any internal header. */
export function stripInternalHeaders(headers: Headers): Headers {
  const out = new Headers();
  headers.forEach((value, name) => {
    if (!isInternalHeader(name)) out.append(name, value);
  });
  return out;
}
