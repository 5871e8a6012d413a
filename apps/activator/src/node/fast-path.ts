import type { IncomingMessage, ServerResponse } from "node:http";
import { APP_UNREACHED_HEADER } from "@thaw/protocol";
import type { Agent, Dispatcher } from "undici";
import type { ActivatorDeps, Lease, RevisionConfig } from "../ports.js";
import { errorResponse, serverTiming, TIMEOUT_BODY } from "../proxy-handler.js";
import type { Telemetry } from "../telemetry.js";
import { answerHeaders, forwardHeaders } from "./fast-headers.js";

const NO_BODY_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

/** The counters the Node path keeps (the portable path's `Telemetry`). */
export type FastPathTelemetry = Pick<Telemetry, "queued" | "rejected" | "replayed">;

/**
 * The easy requests on Node: revision headers, no body, no probe header, no per-request timer other than the
 * total. They are piped straight between node:http and the undici pool, skipping the Web Request/Response
 * bridge and Hono. One that finds no free slot waits here, parked as its (req, res) and a few closures in the
 * throttler's queue, and is forwarded once a slot is granted; a held request so costs little more than its
 * socket (issue 19: 10,000 held across 1,000 cold revisions). Anything else, and a forward that fails before
 * answering (replayed on another pod there), goes through the portable app, which holds the semantics; this
 * path only has to produce the same bytes for the easy case. Returns false when it does not apply.
 */
export function createFastPath(
  deps: ActivatorDeps,
  agent: Agent,
  slow: (req: IncomingMessage, res: ServerResponse) => void,
  telemetry: FastPathTelemetry,
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
    if (!gate.tryAcquire) return false;
    const warm = gate.tryAcquire();

    const { clock, reporter } = deps;
    const arrived = clock.now();
    reporter.requestIn(key, arrived);
    /** Stops whatever the request waits on now: its place in the queue, then its forward. */
    let abort: ((err: Error) => void) | undefined;
    let held: Lease | undefined = warm;
    let expired = false;
    let done = false;
    const timer = clock.setTimeout(() => {
      expired = true;
      abort?.(new Error(TIMEOUT_BODY));
    }, config.timeoutSeconds * 1000);
    const finish = () => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      held?.release();
      reporter.requestOut(key, clock.now());
    };
    res.once("close", () => {
      if (!res.writableFinished) abort?.(new Error("client went away"));
      finish();
    });

    const forward = (lease: Lease, timing: (upstreamMs: number) => string | undefined) => {
      let controller: Dispatcher.DispatchController | undefined;
      let started = false;
      abort = (err) => controller?.abort(err);
      const sentAt = clock.now();
      agent.dispatch(
        {
          origin: `http://${lease.dest}`,
          path: req.url ?? "/",
          method: req.method as "GET",
          headers: forwardHeaders(h, key, deps.passthroughLb),
        },
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
            res.writeHead(statusCode, answerHeaders(up, timing(clock.now() - sentAt)));
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
              telemetry.replayed(key);
              slow(req, res);
              return;
            }
            if (!started && expired) {
              res.writeHead(504, { "content-type": "text/plain; charset=utf-8" }).end(TIMEOUT_BODY);
            } else res.destroy(err);
            finish();
          },
        },
      );
    };

    if (warm) {
      forward(warm, () => undefined);
      return true;
    }
    // No free slot: wait in the throttler's queue (bounded, in arrival order) with nothing else built yet.
    const cold = gate.readyEndpoints().length === 0;
    if (cold) telemetry.queued(key);
    const ac = new AbortController();
    abort = (err) => ac.abort(err);
    gate.acquire(ac.signal).then(
      (lease) => {
        if (done) return lease.release();
        held = lease;
        const queuedMs = clock.now() - arrived;
        // Like the portable path: a request that found the revision cold says where its time went.
        forward(lease, (upstreamMs) =>
          cold ? serverTiming(gate, arrived, queuedMs, upstreamMs) : undefined,
        );
      },
      (err: unknown) => {
        if (done) return;
        const answer = errorResponse(err, expired ? "timeout" : undefined, gate, () =>
          telemetry.rejected(key),
        );
        finish();
        writeAnswer(res, answer);
      },
    );
    return true;
  };
}

/** Writes a small Web Response (an error text) onto a node:http response. */
function writeAnswer(res: ServerResponse, answer: Response): void {
  void answer.text().then((body) => {
    if (res.destroyed) return;
    const headers: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      headers[k] = v;
    });
    res.writeHead(answer.status, headers).end(body);
  });
}
