/** Headers that describe one connection, not the message: a proxy must not pass them on (RFC 9110 7.6.1). */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** Removes hop-by-hop headers, including those the `Connection` header names, in place. */
export function stripHopByHop(headers: Headers): Headers {
  for (const h of (headers.get("connection") ?? "").split(",")) if (h.trim()) headers.delete(h.trim());
  for (const h of HOP_BY_HOP_HEADERS) headers.delete(h);
  return headers;
}
