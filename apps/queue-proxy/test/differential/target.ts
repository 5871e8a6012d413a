/**
 * The queue-proxy as a differential target: started in process by the tests' own helper, in front of a
 * recording app. The header policy lists what the queue-proxy legitimately changes on a request.
 */
import { type HeaderPolicy, type Recorder, startRecorder, type Target } from "@thaw/h1-diff";
import { startInProcess } from "../helpers.js";

/** Fields the queue-proxy removes (hop-by-hop, revision routing, K-Original-Host) or adds (Forwarded). */
export const QUEUE_PROXY_POLICY: HeaderPolicy = {
  ignored: [
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "expect",
    "k-original-host",
    "knative-serving-revision",
    "knative-serving-namespace",
    "forwarded",
  ],
  dropsConnectionNamed: true,
  addedWhenAbsent: ["host"],
  upgradesVersion: true,
};

/**
 * Refusals where the queue-proxy is stricter than llhttp on purpose (README, "Known differences"):
 * transfer codings other than one `chunked`, HTTP versions other than 1.0 and 1.1, CONNECT, Expect
 * values other than 100-continue.
 */
export function queueProxyStricter(answer: { status: number; body: string }): boolean {
  return answer.status === 501 || answer.status === 505 || answer.status === 405 || answer.status === 417;
}

/** A running queue-proxy target with its app; `close` stops both. */
export async function startQueueProxyTarget(): Promise<Target & { app: Recorder; close(): Promise<void> }> {
  const app = await startRecorder();
  const qp = await startInProcess(app.port);
  return {
    name: "queue-proxy",
    port: qp.ports.serving,
    app,
    policy: QUEUE_PROXY_POLICY,
    knownStricter: queueProxyStricter,
    close: async () => {
      await qp.close();
      await app.close();
    },
  };
}
