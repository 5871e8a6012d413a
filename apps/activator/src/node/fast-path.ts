import type { IncomingMessage, ServerResponse } from "node:http";
import type { H1Client } from "@thaw/queue-proxy/http1";
import type { ActivatorDeps, RevisionConfig } from "../ports.js";
import { type FastPathTelemetry, Flight, type ParkingGate } from "./fast-flight.js";

const NO_BODY_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

/**
 * The easy requests on Node: revision headers, no body, no probe header, no per-request timer other than the
 * total. They are piped straight between node:http and the HTTP/1 client's pools, skipping the Web Request/Response
 * bridge and Hono. One that finds no free slot waits here, parked as its (req, res) and one Flight in the
 * throttler's queue, and is forwarded once a slot is granted; a held request so costs little more than its
 * socket (issue 19: 10,000 held across 1,000 cold revisions). Anything else, and a forward that fails before
 * answering (replayed on another pod there), goes through the portable app, which holds the semantics; this
 * path only has to produce the same bytes for the easy case. Returns false when it does not apply.
 */
export function createFastPath(
  deps: ActivatorDeps,
  client: H1Client,
  slow: (req: IncomingMessage, res: ServerResponse) => void,
  telemetry: FastPathTelemetry,
) {
  const context = { deps, client, slow, telemetry };
  return function fastPath(req: IncomingMessage, res: ServerResponse): boolean {
    const h = req.headers;
    const namespace = h["knative-serving-namespace"];
    const name = h["knative-serving-revision"];
    if (typeof namespace !== "string" || typeof name !== "string" || namespace === "" || name === "")
      return false;
    if (h["k-network-probe"] || h["k-network-hash"] || h["k-kubelet-probe"] || h.upgrade) return false;
    if ((h["user-agent"] ?? "").startsWith("kube-probe/")) return false;
    if (h["grpc-timeout"] || h["request-timeout"] || h.prefer) return false;
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
    if (!gate.tryAcquire || !gate.park) return false;
    const parking = gate as ParkingGate;
    new Flight(context, req, res, key, config, parking).start(parking.tryAcquire());
    return true;
  };
}
