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

/**
 * Removes, in place, the fields the `Connection` header names (RFC 9110 7.6.1) and keeps in `Connection`
 * only the standard hop-by-hop tokens (`upgrade`, `keep-alive`, `close`...). A proxy calls it on what it
 * received before it adds its own fields (X-Forwarded-*, Forwarded, K-Proxy-Request...), so a client that
 * names those in `Connection` cannot make a later hop-by-hop pass remove them.
 */
export function dropConnectionNamed(headers: Headers): Headers {
  const connection = headers.get("connection");
  if (connection === null) return headers;
  const kept: string[] = [];
  for (const raw of connection.split(",")) {
    const token = raw.trim().toLowerCase();
    if (token === "close" || HOP_BY_HOP_HEADERS.includes(token)) kept.push(token);
    // Framing and Host are never the client's to remove (as the queue-proxy's parser rules it).
    else if (token !== "" && token !== "host" && token !== "content-length") headers.delete(token);
  }
  if (kept.length > 0) headers.set("connection", kept.join(", "));
  else headers.delete("connection");
  return headers;
}

/** Removes hop-by-hop headers, including those the `Connection` header names, in place. */
export function stripHopByHop(headers: Headers): Headers {
  dropConnectionNamed(headers);
  for (const h of HOP_BY_HOP_HEADERS) headers.delete(h);
  return headers;
}
