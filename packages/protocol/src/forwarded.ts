import { Header } from "./headers.js";

/** Splits X-Forwarded-For into trimmed nodes; a trailing comma adds no empty node (Knative's reading). */
function forwardedNodes(xff: string): string[] {
  if (xff === "") return [];
  const nodes: string[] = [];
  let from = 0;
  do {
    const comma = xff.indexOf(",", from);
    const end = comma === -1 ? xff.length : comma;
    nodes.push(xff.slice(from, end).trim());
    from = end + 1;
  } while (from < xff.length);
  return nodes;
}

/** A `for=` value: anything with a colon counts as IPv6 and is written as `"[addr]"` (RFC 7239 4). */
function forNode(node: string): string {
  return node.includes(":") ? `"[${node}]"` : node;
}

/**
 * The `Forwarded` value the queue-proxy synthesises from `X-Forwarded-For/-Host/-Proto`
 * (knative-spec.md c.8): `for=<first>;host=<xfh>;proto=<xfp>` then `, for=<next>` per further node.
 * Undefined when none of the three is present.
 */
export function forwardedFromXForwarded(xff: string, xfh: string, xfp: string): string | undefined {
  if (xff === "" && xfh === "" && xfp === "") return undefined;
  const [first = "", ...rest] = forwardedNodes(xff);
  let out = xff === "" ? "" : `for=${forNode(first)}`;
  // Knative puts the ';' only after a non-empty first node: "for=" followed by "host=" has none.
  if (xfh !== "") out += `${first !== "" ? ";" : ""}host=${xfh}`;
  if (xfp !== "") out += `${first !== "" || xfh !== "" ? ";" : ""}proto=${xfp}`;
  for (const node of rest) out += `, for=${forNode(node)}`;
  return out;
}

/**
 * The queue-proxy's Forwarded shim: the request's `Forwarded` value after the shim, i.e. the existing
 * header if any, else the one synthesised from X-Forwarded-*, else undefined.
 */
export function forwardedHeaderFor(headers: Headers): string | undefined {
  const existing = headers.get(Header.forwarded) ?? "";
  if (existing !== "") return existing;
  return forwardedFromXForwarded(
    headers.get(Header.xForwardedFor) ?? "",
    headers.get(Header.xForwardedHost) ?? "",
    headers.get(Header.xForwardedProto) ?? "",
  );
}

/** A copy of `headers` with the Forwarded shim applied. */
export function withForwardedShim(headers: Headers): Headers {
  const copy = new Headers(headers);
  const value = forwardedHeaderFor(headers);
  if (value !== undefined) copy.set(Header.forwarded, value);
  return copy;
}
