import { type ForwardedElement, formatForwarded, forwardedNode, parseForwarded } from "./forwarded-list.js";
import { Header } from "./headers.js";

/** What a gateway knows about the connection a request came on. */
export interface ForwardingContext {
  /** The connecting peer's address (the socket's remote address), when known. */
  peer: string | undefined;
  /** The peer is a trusted proxy (`trustedProxies`), so what it says about the client is kept. */
  trusted: boolean;
  /** The scheme the gateway received the request with. */
  proto: string;
  /** The Host the gateway received. */
  host: string | undefined;
}

/** Headers that describe the client; only a trusted proxy may set them. */
export const FORWARDING_HEADERS: readonly string[] = [
  Header.forwarded,
  Header.xForwardedFor,
  Header.xForwardedHost,
  Header.xForwardedProto,
];

/**
 * The forwarding headers a gateway sends on. From an untrusted peer every client value is dropped and
 * replaced by what the gateway saw (`for` = the peer, its host and scheme); from a trusted proxy the
 * chain is kept and the peer appended (`X-Forwarded-For: client, proxy`), its proto and host kept.
 * `Forwarded` always agrees with the X-Forwarded-* values: a trusted proxy's parseable one gets the peer
 * appended, anything else is rebuilt from the X-Forwarded-* chain.
 */
export function rewriteForwardingHeaders(headers: Headers, ctx: ForwardingContext): Headers {
  const out = new Headers(headers);
  const incoming = ctx.trusted ? (headers.get(Header.forwarded) ?? "") : "";
  if (!ctx.trusted) for (const name of FORWARDING_HEADERS) out.delete(name);
  const prior = (out.get(Header.xForwardedFor) ?? "").trim();
  const chain = [prior, ctx.peer ?? ""].filter((s) => s !== "").join(", ");
  if (chain !== "") out.set(Header.xForwardedFor, chain);
  if (!out.has(Header.xForwardedProto)) out.set(Header.xForwardedProto, ctx.proto);
  if (!out.has(Header.xForwardedHost) && ctx.host) out.set(Header.xForwardedHost, ctx.host);
  const parsed = incoming !== "" ? parseForwarded(incoming) : undefined;
  let elements: ForwardedElement[];
  if (parsed) {
    elements = ctx.peer ? [...parsed, { for: forwardedNode(ctx.peer) }] : parsed;
  } else {
    const nodes = chain === "" ? [] : chain.split(",").map((s) => s.trim());
    elements = nodes.length === 0 ? [{}] : nodes.map((node) => ({ for: forwardedNode(node) }));
    const first = elements[0] as ForwardedElement;
    const xfh = out.get(Header.xForwardedHost);
    if (xfh) first.host = xfh;
    first.proto = out.get(Header.xForwardedProto) as string;
  }
  out.set(Header.forwarded, formatForwarded(elements.filter((e) => Object.keys(e).length > 0)));
  return out;
}
