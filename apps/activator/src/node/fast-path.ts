import type { IncomingMessage, ServerResponse } from "node:http";
import {
  APP_UNREACHED_HEADER,
  HOP_BY_HOP_HEADERS,
  passthroughLbHeaders,
  REVISION_HEADERS,
} from "@thaw/protocol";
import type { Agent, Dispatcher } from "undici";
import type { ActivatorDeps, RevisionConfig, RevisionKey } from "../ports.js";

const SKIP_REQUEST = new Set([...HOP_BY_HOP_HEADERS, "host", ...REVISION_HEADERS]);
const SKIP_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "proxy-connection",
  "trailer",
]);
const NO_BODY_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

/**
 * The warm path on Node: a request with revision headers, no body, no probe header, and a free slot on a
 * healthy pod right now is piped straight between node:http and the undici pool, skipping the Web
 * Request/Response bridge. Anything else (cold, queued, bodies, probes, per-request timers other than the
 * total, a forward that fails before answering) goes through the portable app, which holds the semantics;
 * this path only has to produce the same bytes for the easy case. Returns false when it does not apply.
 */
export function createFastPath(
  deps: ActivatorDeps,
  agent: Agent,
  slow: (req: IncomingMessage, res: ServerResponse) => void,
  /** Told when a failed warm forward is handed to the portable path, which sends it to another pod. */
  onReplay: (key: RevisionKey) => void = () => {},
) {
  return function fastPath(req: IncomingMessage, res: ServerResponse): boolean {
    const h = req.headers;
    const namespace = h["knative-serving-namespace"];
    const name = h["knative-serving-revision"];
    if (typeof namespace !== "string" || typeof name !== "string" || namespace === "" || name === "")
      return false;
    if (h["k-network-probe"] || h["k-network-hash"] || h["k-kubelet-probe"] || h.upgrade) return false;
    if ((h["user-agent"] ?? "").startsWith("kube-probe/")) return false;
    if (h["grpc-timeout"] || h["request-timeout"]) return false;
    if (
      !NO_BODY_METHODS.has(req.method ?? "") ||
      h["transfer-encoding"] ||
      (h["content-length"] ?? "0") !== "0"
    )
      return false;
    const key = { namespace, name };
    const config = deps.revisions.lookup(key) as RevisionConfig | undefined | Promise<unknown>;
    if (config === undefined || config instanceof Promise) return false;
    if (config.responseStartTimeoutSeconds > 0 || config.idleTimeoutSeconds > 0) return false;
    const gate = deps.coordinator.gate(key, config);
    const lease = gate.tryAcquire?.();
    if (!lease) return false;

    const headers: Record<string, string | string[]> = {};
    for (const k in h) {
      const v = h[k];
      if (v !== undefined && !SKIP_REQUEST.has(k)) headers[k] = v;
    }
    for (const c of (typeof h.connection === "string" ? h.connection : "").split(","))
      delete headers[c.trim().toLowerCase()];
    if (!headers["k-original-host"] && h.host) headers["k-original-host"] = h.host;
    headers["k-proxy-request"] = "activator";
    // undici sends a `host` entry as the Host header instead of the origin's.
    if (deps.passthroughLb) {
      for (const [k, v] of passthroughLbHeaders(new Headers(), key)) headers[k] = v;
    }

    const { clock, reporter } = deps;
    reporter.requestIn(key, clock.now());
    let controller: Dispatcher.DispatchController | undefined;
    let expired = false;
    let done = false;
    let started = false;
    const timer = clock.setTimeout(() => {
      expired = true;
      controller?.abort(new Error("activator request timeout"));
    }, config.timeoutSeconds * 1000);
    const finish = () => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      lease.release();
      reporter.requestOut(key, clock.now());
    };
    res.once("close", () => {
      if (!res.writableFinished) controller?.abort(new Error("client went away"));
      finish();
    });
    agent.dispatch(
      { origin: `http://${lease.dest}`, path: req.url ?? "/", method: req.method as "GET", headers },
      {
        onRequestStart(c) {
          controller = c;
        },
        onResponseStart(c, statusCode, up) {
          if (statusCode === 502 && up[APP_UNREACHED_HEADER] !== undefined) {
            // The app never got it: abort, and onResponseError hands it to the portable path's replay.
            c.abort(new Error("the app refused the connection"));
            return;
          }
          started = true;
          const out: Record<string, string | string[]> = {};
          for (const k in up) {
            const v = up[k];
            if (v !== undefined && !SKIP_RESPONSE.has(k)) out[k] = v;
          }
          res.writeHead(statusCode, out);
        },
        onResponseData(c, chunk) {
          // Back-pressure: a slow client pauses the pod's body instead of buffering it here.
          if (!res.write(chunk)) {
            c.pause();
            res.once("drain", () => c.resume());
          }
        },
        onResponseEnd() {
          res.end();
          finish();
        },
        onResponseError(_c, err) {
          if (!started && !expired && !res.destroyed) {
            // No answer yet: let the portable path decide (replay on another pod, or 502).
            finish();
            gate.reportFailure(lease.dest);
            onReplay(key);
            slow(req, res);
            return;
          }
          if (!started && expired) {
            res
              .writeHead(504, { "content-type": "text/plain; charset=utf-8" })
              .end("activator request timeout");
          } else res.destroy(err);
          finish();
        },
      },
    );
    return true;
  };
}
