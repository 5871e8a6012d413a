/**
 * The queue-proxy as a differential target: started in process by the tests' own helper, in front of a
 * recording app. The header policy lists what the queue-proxy legitimately changes on a request.
 */
import { type HeaderPolicy, type Recorder, startRecorder, type Target } from "@thaw/h1-diff";
import { afterAll, beforeAll } from "vitest";
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
 * transfer codings other than one `chunked` (501), HTTP versions other than 1.0 and 1.1 (505), CONNECT
 * (405), Expect values other than 100-continue (417), an HTTP/1.1 request without Host (400, as RFC 9112
 * 3.2 requires), and the 400s whose text says "not supported" (HTTP/0.9, repeated spaces in the request
 * line, several Host fields, lengths and chunk sizes too large).
 */
export function queueProxyStricter(answer: { status: number; body: string }): boolean {
  if (answer.status === 400) {
    return answer.body.includes("not supported") || answer.body.includes("missing required Host header");
  }
  return answer.status === 501 || answer.status === 505 || answer.status === 405 || answer.status === 417;
}

/** The queue-proxy as a differential target, its app, and how to stop both. */
export type QueueProxyTarget = Target & { app: Recorder; close(): Promise<void> };

/** A running queue-proxy target with its app; `close` stops both. */
export async function startQueueProxyTarget(): Promise<QueueProxyTarget> {
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

/**
 * llhttp's recorder (the reference) and the queue-proxy target for a whole test file: started before its
 * first test, closed after its last. Read `reference` and `target` inside tests.
 */
export function differentialPair(): { readonly reference: Recorder; readonly target: QueueProxyTarget } {
  let reference: Recorder | undefined;
  let target: QueueProxyTarget | undefined;
  beforeAll(async () => {
    reference = await startRecorder();
    target = await startQueueProxyTarget();
  });
  afterAll(async () => {
    await target?.close();
    await reference?.close();
  });
  return {
    get reference() {
      if (!reference) throw new Error("the differential pair is read before its beforeAll ran");
      return reference;
    },
    get target() {
      if (!target) throw new Error("the differential pair is read before its beforeAll ran");
      return target;
    },
  };
}
