import { isInternalHeader } from "@thaw/ingress-hook";
import { type AddressRanges, dropConnectionNamed, Header, rewriteForwardingHeaders } from "@thaw/protocol";

/**
 * What the gateway passes on of a client's headers: none of the internal ones nor the route-by-name ones
 * (`Knative-Serving-*`, `x-envoy-decorator-operation`: in `thaw up` only the host table routes), and the
 * forwarding headers rewritten for the connecting peer (kept and appended only from a trusted proxy). The
 * fields the client's `Connection` names go before the gateway adds its own, so naming them there cannot
 * make a later hop-by-hop pass remove the gateway's X-Forwarded-* and Forwarded.
 */
export function clientHeaders(
  headers: Headers,
  peer: string | undefined,
  trustedProxies: AddressRanges,
): Headers {
  const out = new Headers();
  headers.forEach((v, k) => {
    if (!isInternalHeader(k) && k !== Header.envoyDecoratorOperation) out.append(k, v);
  });
  dropConnectionNamed(out);
  return rewriteForwardingHeaders(out, {
    peer,
    trusted: trustedProxies.has(peer),
    proto: "http",
    host: headers.get("host") ?? undefined,
  });
}

/** The socket's remote address of a request served by @hono/node-server (undefined in app.request()). */
export function peerOf(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
    ?.remoteAddress;
}
