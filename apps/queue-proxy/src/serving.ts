import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { forwardedFromXForwarded } from "@thaw/protocol";
import { whenH2StreamSettled } from "@thaw/protocol/node";
import { Exchange, type ExchangeContext } from "./exchange.js";
import { NodeDownstream } from "./node-downstream.js";
import type { Downstream, DrainState } from "./ports.js";
import { type RequestHead, scanRequestHead } from "./request-head.js";
import { sendResponse } from "./send-response.js";

/** The drainer as the serving port uses it (`Drainer` of @thaw/protocol). */
export interface ServingDrainer extends DrainState {
  /** Health checks and network probes answered by the drainer (a.3 step 3); undefined = pass on. */
  intercept(req: Request): Response | Promise<Response> | undefined;
}

/** The probe-relevant headers of a request, only built for requests that may be probes. */
function probeRequest(head: RequestHead): Request {
  const h = new Headers();
  if (head.userAgent !== "") h.set("user-agent", head.userAgent);
  if (head.networkProbe !== "") h.set("k-network-probe", head.networkProbe);
  if (head.networkHash !== "") h.set("k-network-hash", head.networkHash);
  if (head.kubeletProbe !== "") h.set("k-kubelet-probe", head.kubeletProbe);
  return new Request("http://queue-proxy/", { headers: h });
}

/**
 * Cheap superset of every probe predicate (kubelet and Knative prober user-agents, any `K-Network-Probe`,
 * any `K-Kubelet-Probe`): ordinary requests skip the exact @thaw/protocol checks and their allocations.
 */
export function mayBeProbe(head: RequestHead): boolean {
  if (head.networkProbe !== "" || head.kubeletProbe !== "") return true;
  const ua = head.userAgent;
  return ua.length >= 11 && (ua.startsWith("kube-probe/") || ua.startsWith("Knative-"));
}

/** Adds the `Forwarded` header synthesised from X-Forwarded-* when the request has none (c.8). */
function addForwarded(head: RequestHead): void {
  if (head.hasForwarded) return;
  if (head.xForwardedFor === "" && head.xForwardedHost === "" && head.xForwardedProto === "") return;
  const value = forwardedFromXForwarded(head.xForwardedFor, head.xForwardedHost, head.xForwardedProto);
  if (value !== undefined) head.upstream.push("forwarded", value);
}

/** Handles one request: its client side and its fields as received. */
export type ServingHandler = (client: Downstream, rawHeaders: string[]) => void;

/** Builds the serving port's request handler: drainer and probes first, then the proxy (a.3 order). */
export function servingHandler(ctx: ExchangeContext, drainer: ServingDrainer): ServingHandler {
  return (client, rawHeaders) => {
    const head = scanRequestHead(rawHeaders);
    let bypass = false;
    if (mayBeProbe(head)) {
      const own = drainer.intercept(probeRequest(head));
      if (own !== undefined) {
        void Promise.resolve(own).then((answer) => sendResponse(client, answer));
        return;
      }
      // K-Kubelet-Probe (networking's rule) reaches the proxy but skips breaker and stats (c.3).
      bypass = head.kubeletProbe !== "";
    }
    drainer.noteRequest();
    addForwarded(head);
    const ex = new Exchange(ctx, client, head.upstream);
    // Like Knative: K-Proxy-Request stays on the request to the app and marks it as proxied in the stats.
    ex.proxied = head.proxyRequest !== "";
    ex.start(bypass);
  };
}

/**
 * The same handler as a request listener for Node's servers (the TLS port, HTTP/2). An HTTP/2 stream waits
 * until the client's next frames were read (`whenH2StreamSettled`): one the client reset with its HEADERS
 * never reaches the app nor the stats.
 */
export function nodeListener(
  handler: ServingHandler,
): (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void {
  return (req, res) => {
    if ("stream" in req)
      whenH2StreamSettled(req.stream, () => handler(new NodeDownstream(req, res), req.rawHeaders));
    else handler(new NodeDownstream(req, res), req.rawHeaders);
  };
}
