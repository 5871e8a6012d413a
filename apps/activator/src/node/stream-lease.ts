import { deliveredIo, retryAfterSeconds } from "@thaw/activation";
import { resolveRevision } from "@thaw/protocol";
import type { ActivatorDeps, RevisionKey } from "../ports.js";

/** What a long-lived exchange (websocket upgrade, HTTP/2 stream) got while waiting for a pod. */
export type StreamLease =
  | { kind: "unknown" }
  | { kind: "unavailable"; message: string; retryAfterSeconds: number }
  | {
      kind: "leased";
      key: RevisionKey;
      gate: ReturnType<ActivatorDeps["coordinator"]["gate"]>;
      lease: Awaited<ReturnType<ReturnType<ActivatorDeps["coordinator"]["gate"]>["acquire"]>>;
      /** Ends the wait's bookkeeping (concurrency reported out); idempotent. */
      done(): void;
    };

/**
 * Resolves the revision of a websocket upgrade or HTTP/2 stream and waits for a pod like any request: within
 * the revision's timeout, given up when the client goes (`closed` emits "close"), counted in and out for
 * the autoscaler. The caller releases the lease and calls `done` when the exchange ends.
 */
export async function streamLease(
  path: string,
  headers: Headers,
  closed: { once(event: "close", fn: () => void): unknown },
  deps: ActivatorDeps,
): Promise<StreamLease> {
  const found = resolveRevision(new Request(`http://activator${path}`, { headers }));
  const key = found ? { namespace: found.namespace, name: found.name } : undefined;
  const config = key ? await deps.revisions.lookup(key) : undefined;
  if (!key || !config) return { kind: "unknown" };
  const gate = deps.coordinator.gate(key, config);
  const ac = new AbortController();
  const timer = deps.clock.setTimeout(
    () => ac.abort(new DOMException("timeout", "TimeoutError")),
    config.timeoutSeconds * 1000,
  );
  closed.once("close", () => ac.abort(new DOMException("client went away", "AbortError")));
  deps.reporter.requestIn(key, deps.clock.now());
  let out = false;
  const done = () => {
    if (out) return;
    out = true;
    deps.reporter.requestOut(key, deps.clock.now());
  };
  try {
    const lease = await gate.acquire(ac.signal);
    // Granted perhaps in the turn the client left: its close is let in first, and a gone one gives the
    // slot back unused (see afterDeliveredIo).
    await deliveredIo();
    if (ac.signal.aborted) {
      lease.release();
      throw ac.signal.reason;
    }
    return { kind: "leased", key, gate, lease, done };
  } catch (err) {
    done();
    const message = (err as Error).message;
    return { kind: "unavailable", message, retryAfterSeconds: retryAfterSeconds(gate.recentColdStartsMs()) };
  } finally {
    // The wait is over either way; a stream's own time is its deadline from here on.
    deps.clock.clearTimeout(timer);
  }
}
