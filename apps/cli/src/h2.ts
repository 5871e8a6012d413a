import type { Socket } from "node:net";
import type { ActivatorDeps } from "@thaw/activator";
import { h2RequestHeaders, handleH2Stream, PodSessions } from "@thaw/activator/node";
import { type IngressHook, normalizeHost, pathOf } from "@thaw/ingress-hook";
import { type AddressRanges, Header } from "@thaw/protocol";
import { clientHeaders } from "./client-headers.js";

/**
 * Carries HTTP/2 streams (h2c prior knowledge, gRPC unary and streaming) through `thaw up`'s gateway: the
 * same client-header rules and host table as every request, then the activator's HTTP/2 splice, which waits
 * for a ready pod (waking a cold revision) and relays headers, data and trailers to the pod's queue-proxy.
 */
export function gatewayH2(hook: IngressHook, activator: ActivatorDeps, trustedProxies: AddressRanges) {
  const pods = new PodSessions();
  const onStream = (
    stream: import("node:http2").ServerHttp2Stream,
    h: import("node:http2").IncomingHttpHeaders,
    socket: Socket,
  ): void => {
    const path = String(h[":path"] ?? "/");
    const method = String(h[":method"] ?? "GET");
    const headers = clientHeaders(h2RequestHeaders(h), socket.remoteAddress, trustedProxies);
    const d = hook.tryDecide(
      { method, host: normalizeHost(headers.get("host") ?? ""), path: pathOf(path), headers },
      hook.clock.now(),
    );
    if (d.kind === "deny") {
      stream.respond({ ":status": d.status, "content-type": "application/json" });
      stream.end(JSON.stringify({ error: { code: d.code, message: d.message } }));
      return;
    }
    // The splice reads the revision from these headers (a client's were removed above).
    headers.set(Header.namespace, d.revision.namespace);
    headers.set(Header.revision, d.revision.name);
    void handleH2Stream(stream, headers, path, method, activator, pods);
  };
  return { onStream, close: () => pods.close() };
}
